"""A stack whose `forward` zips its layer pairs with per-layer arguments into a list, and
rebinds that list to a random subset only when layer drop is on (off unless asked for). The
pairs run as built: `depth` pre-norm layers whose writers keep PyTorch's default init."""

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
        self.down = nn.Linear(4 * width, width)  # expect: INI001

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
        self.stack = Stack(nn.ModuleList(pairs))
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(self.stack(x))
