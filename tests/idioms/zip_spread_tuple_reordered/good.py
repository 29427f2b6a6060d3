"""A block loop over `zip(*walked)` with `walked` rebound to a reordering of itself, writers scaled.

Both output projections start at 0.02/sqrt(2 * depth), the GPT-2 factor for the 2 * depth adds.
"""

import math

import torch.nn as nn
import torch.nn.functional as F


class Mixer(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        nn.init.normal_(self.proj.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v))


class Expand(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = nn.Linear(width, 2 * width)
        self.outer = nn.Linear(2 * width, width)
        nn.init.normal_(self.outer.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        return self.outer(F.relu(self.inner(self.norm(x))))


class Trunk(nn.Module):
    def __init__(self, width=192, depth=8, rate=0.1):
        super().__init__()
        self.rates = tuple(rate * i / depth for i in range(depth))
        self.pairs = nn.ModuleList([nn.ModuleList([Mixer(width, depth), Expand(width, depth)]) for _ in range(depth)])
        self.order = tuple(range(depth))

    def forward(self, x):
        walked = (self.pairs, self.rates)
        walked = tuple(tuple(items[i] for i in self.order) for items in walked)
        for (mixer, expand), rate in zip(*walked):
            x = x + F.dropout(mixer(x), rate)
            x = x + F.dropout(expand(x), rate)
        return x
