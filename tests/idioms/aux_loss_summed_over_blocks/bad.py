"""The block loop also sums a side value over the blocks (a penalty on each attention output,
an auxiliary loss): `penalty = 0.` before the loop, `penalty = penalty + h.pow(2).mean()` in it.
That sum is no residual stream: each block adds twice into `x`, so the depth factor must count
2 * depth adds, and `sqrt(depth)` counts the blocks."""

import math

import torch.nn as nn


class Branch(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return self.proj(self.norm(x))


class Model(nn.Module):
    def __init__(self, width=256, depth=12):
        super().__init__()
        self.layers = nn.ModuleList([nn.ModuleList([Branch(width), Branch(width)]) for _ in range(depth)])
        for attn, ff in self.layers:
            nn.init.normal_(attn.proj.weight, std=0.02 / math.sqrt(depth))  # expect: INI002
            nn.init.normal_(ff.proj.weight, std=0.02 / math.sqrt(depth))  # expect: INI002

    def forward(self, x):
        penalty = 0.0
        for attn, ff in self.layers:
            h = attn(x)
            x = x + h
            x = x + ff(x)
            penalty = penalty + h.pow(2).mean()
        return x, penalty
