"""Builds the mixer only for a kind its caller must name (no default): the model built with its
defaults may hold a plain linear instead, so its scaled init cannot clear the mixer."""

import math

import torch.nn as nn

from pkg.layers import Mixer


class Unit(nn.Module):
    def __init__(self, width, kind):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        if kind == "mixer":
            self.mixer = Mixer(width)
        else:
            self.mixer = nn.Linear(width, width)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class ChoiceNet(nn.Module):
    def __init__(self, kind, width=64, depth=6):
        super().__init__()
        self.depth = depth
        self.units = nn.ModuleList([Unit(width, kind) for _ in range(depth)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02 / math.sqrt(2 * self.depth))

    def forward(self, x):
        for unit in self.units:
            x = unit(x)
        return x
