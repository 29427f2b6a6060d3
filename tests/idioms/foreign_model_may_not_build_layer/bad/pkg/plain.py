"""Always stacks the mixer, pre-norm, and draws every linear at 0.02: no depth factor."""

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
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for unit in self.units:
            x = unit(x)
        return x
