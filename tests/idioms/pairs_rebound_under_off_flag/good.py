"""bad.py with the writers drawn at 0.02 / sqrt(2 * depth) (the zipped list still rebound only
when layer drop is on)."""

import math
import random

from torch import nn


def keep_some(pairs, rate):
    return [pair for pair in pairs if random.random() >= rate]


class PreNorm(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = inner

    def forward(self, x, **kwargs):
        return self.inner(self.norm(x), **kwargs)


class Expand(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x, **kwargs):
        return self.down(self.up(x).relu())


class Stack(nn.Module):
    def __init__(self, pairs, drop_rate=0.0):
        super().__init__()
        self.pairs = pairs
        self.drop_rate = drop_rate

    def forward(self, x, **kwargs):
        routed = [({}, {}) for _ in self.pairs]
        pairs_and_args = list(zip(self.pairs, routed))
        if self.drop_rate > 0:
            pairs_and_args = keep_some(pairs_and_args, self.drop_rate)
        for (first, second), (first_args, second_args) in pairs_and_args:
            x = x + first(x, **first_args)
            x = x + second(x, **second_args)
        return x


class Model(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        pairs = [nn.ModuleList([PreNorm(width, Expand(width)), PreNorm(width, Expand(width))]) for _ in range(depth)]
        for pair in pairs:
            for wrapped in pair:
                nn.init.normal_(wrapped.inner.down.weight, std=0.02 / math.sqrt(2 * depth))
        self.stack = Stack(nn.ModuleList(pairs))
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(self.stack(x))
