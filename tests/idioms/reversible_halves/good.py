"""A reversible (RevNet-style) stack: each block splits the stream into two halves and adds a
pre-normed branch of one half into the other (`y1 = x1 + f(x2)`, `y2 = x2 + g(y1)`), so each
half takes one add per block: N is the depth, and the writers are scaled by it."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Normed(nn.Module):
    def __init__(self, width, fn):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x))


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.merge = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.merge(F.scaled_dot_product_attention(q, k, v))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(2 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Coupling(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.f = Normed(width, Attention(width))
        self.g = Normed(width, MLP(width))

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=-1)
        y1 = x1 + self.f(x2)
        y2 = x2 + self.g(y1)
        return torch.cat([y1, y2], dim=-1)


class RevStack(nn.Module):
    def __init__(self, width=128, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Coupling(width) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for block in self.blocks:
            nn.init.normal_(block.f.fn.merge.weight, std=0.02 / math.sqrt(depth))
            nn.init.normal_(block.g.fn.down.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        x = torch.cat([x, x], dim=-1)
        for block in self.blocks:
            x = block(x)
        return torch.stack(x.chunk(2, dim=-1)).mean(dim=0)
