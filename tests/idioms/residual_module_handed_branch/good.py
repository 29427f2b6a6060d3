"""The block hands the stream and each branch's output to a small residual module
(`x = self.resid_attn(x, h)`) whose `forward` adds them; the writers are depth-scaled."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Residual(nn.Module):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, y):
        return x + self.branch(y)

    def branch(self, y):
        return self.dropout(y)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)
        self.resid_attn = Residual(0.1)
        self.resid_mlp = Residual(0.1)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        h = self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        x = self.resid_attn(x, h)
        h = self.out(F.gelu(self.fc(self.norm_2(x))))
        return self.resid_mlp(x, h)


class Model(nn.Module):
    def __init__(self, dim=256, depth=12):
        super().__init__()
        self.embed = nn.Embedding(1000, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.apply(self._init)
        for block in self.blocks:
            for writer in (block.proj, block.out):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * depth))

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
