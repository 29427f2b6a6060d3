"""Blocks whose `forward` takes its inputs by keyword only: the stream and a tensor the block only
reads (an attention mask, a position table), both required. Only the stream is written: the
attention branch reads the mask, it is not added into the stream. Pre-norm, PyTorch's default init.

Two shapes: a block that rebinds `x` with `x = x + ...`, one that keeps a copy of the stream and
returns the sum."""
import torch
import torch.nn as nn


class HeadAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

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
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, *, x, mask):
        x = x + self.attn(hidden=self.attn_norm(x), mask=mask)
        x = x + self.down(torch.relu(self.up(self.mlp_norm(x))))
        return x


class MaskedEncoder(nn.Module):
    def __init__(self, width=128, n_layer=8):
        super().__init__()
        self.layers = nn.ModuleList([MaskedLayer(width) for _ in range(n_layer)])

    def forward(self, x, mask):
        for layer in self.layers:
            x = layer(x=x, mask=mask)
        return x


class TableMix(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mix = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, tokens, table):
        return self.proj(torch.tanh(self.mix(tokens)) * table)


class TableBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.pre = nn.LayerNorm(dim)
        self.body = TableMix(dim)

    def forward(self, *, stream, positions):
        skip = stream
        return skip + self.body(self.pre(stream), positions)


class TableModel(nn.Module):
    def __init__(self, dim=96, depth=10):
        super().__init__()
        self.blocks = nn.ModuleList([TableBlock(dim) for _ in range(depth)])
        self.table = nn.Parameter(torch.ones(dim))

    def forward(self, stream):
        for block in self.blocks:
            stream = block(stream=stream, positions=self.table)
        return stream
