"""The fixed version of bad.py: the same keyword-only blocks (the stream and a tensor they
only read, both required), their writers depth-scaled (GPT-2)."""
import math
import torch
import torch.nn as nn


class HeadAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, *, hidden, mask):
        q, k, v = self.qkv(hidden).chunk(3, dim=-1)
        scores = (q @ k.transpose(-1, -2)).masked_fill(mask == 0, float("-inf"))
        return self.out(scores.softmax(dim=-1) @ v)


class MaskedLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.attn = HeadAttention(width)
        self.mlp_norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, *, x, mask):
        x = x + self.attn(hidden=self.attn_norm(x), mask=mask)
        x = x + self.down(torch.relu(self.up(self.mlp_norm(x))))
        return x


class MaskedEncoder(nn.Module):
    def __init__(self, width=128, n_layer=8):
        super().__init__()
        self.layers = nn.ModuleList([MaskedLayer(width) for _ in range(n_layer)])
        for name, param in self.named_parameters():
            if name.endswith(("attn.out.weight", "down.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layer))

    def forward(self, x, mask):
        for layer in self.layers:
            x = layer(x=x, mask=mask)
        return x


class TableMix(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.mix = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)
        nn.init.normal_(self.proj.weight, std=0.02 / math.sqrt(depth))

    def forward(self, tokens, table):
        return self.proj(torch.tanh(self.mix(tokens)) * table)


class TableBlock(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.pre = nn.LayerNorm(dim)
        self.body = TableMix(dim, depth)

    def forward(self, *, stream, positions):
        skip = stream
        return skip + self.body(self.pre(stream), positions)


class TableModel(nn.Module):
    def __init__(self, dim=96, depth=10):
        super().__init__()
        self.blocks = nn.ModuleList([TableBlock(dim, depth) for _ in range(depth)])
        self.table = nn.Parameter(torch.ones(dim))

    def forward(self, stream):
        for block in self.blocks:
            stream = block(stream=stream, positions=self.table)
        return stream
