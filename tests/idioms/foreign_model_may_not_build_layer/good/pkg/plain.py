"""Always stacks the mixer, pre-norm, and scales every linear by 1/sqrt(2 * depth)."""

import math

import torch.nn as nn

from pkg.layers import Mixer


class Unit(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mixer = Mixer(width)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class PlainNet(nn.Module):
    def __init__(self, width=64, depth=6):
        super().__init__()
        self.depth = depth
        self.units = nn.ModuleList([Unit(width) for _ in range(depth)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02 / math.sqrt(2 * self.depth))

    def forward(self, x):
        for unit in self.units:
            x = unit(x)
        return x
