"""The model hands each block one norm instance; the block builds its two norms of the same
class with `type(norm)(width)`. The blocks are pre-norm; their writers start at
0.02/sqrt(2 * depth)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ScaleNorm(nn.Module):
    def __init__(self, width, eps=1e-6):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(width))
        self.eps = eps

    def forward(self, x):
        return self.gain * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class Unit(nn.Module):
    def __init__(self, width, norm):
        super().__init__()
        norm_class = type(norm)
        self.pre_mix = norm_class(width)
        self.pre_ff = norm_class(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.to_out = nn.Linear(width, width)
        self.expand = nn.Linear(width, 4 * width)
        self.contract = nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.pre_mix(x)).view(b, t, 3, 4, c // 4).permute(2, 0, 3, 1, 4)
        x = x + self.to_out(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, c))
        return x + self.contract(F.silu(self.expand(self.pre_ff(x))))


class Stack(nn.Module):
    def __init__(self, width=256, depth=10):
        super().__init__()
        self.units = nn.ModuleList([Unit(width, ScaleNorm(width)) for _ in range(depth)])
        self.final = ScaleNorm(width)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for unit in self.units:
            for writer in (unit.to_out, unit.contract):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for unit in self.units:
            x = unit(x)
        return self.final(x)
