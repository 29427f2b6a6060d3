"""The MLP runs on slices of the sequence to save memory: a wrapper cuts its input into chunks,
applies the MLP to each in a list comprehension and joins the results. Nothing scales the
writers."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class InSlices(nn.Module):
    def __init__(self, slices, fn, dim=1):
        super().__init__()
        self.slices = slices
        self.fn = fn
        self.dim = dim

    def forward(self, x):
        pieces = x.chunk(self.slices, dim=self.dim)
        return torch.cat([self.fn(piece) for piece in pieces], dim=self.dim)


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.mlp = InSlices(8, MLP(width))

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.mlp(self.norm2(x))


class Model(nn.Module):
    def __init__(self, width=128, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
