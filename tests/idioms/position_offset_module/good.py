"""The block of bad.py, its writers scaled by depth (GPT-2) in the init."""

import math

import torch
from torch import nn


class PositionBias(nn.Module):
    def __init__(self, width, tokens):
        super().__init__()
        self.table = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, width))
        self.tokens = tokens
        self.cached = None

    def forward(self, x):
        coords = torch.linspace(-1, 1, self.tokens * 2).view(1, self.tokens, 2)
        self.cached = self.table(coords)
        x = x + self.cached
        return x


class Block(nn.Module):
    def __init__(self, width, tokens):
        super().__init__()
        self.position = PositionBias(width, tokens)
        self.norm1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        x = self.position(x)
        x = x + self.mix(self.norm1(x))
        return x + self.down(torch.relu(self.up(self.norm2(x))))


class Net(nn.Module):
    def __init__(self, width=64, tokens=16, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, tokens) for _ in range(depth)])
        self.apply(self._init)
        for name, param in self.named_parameters():
            if name.endswith(("mix.weight", "down.weight")):
                nn.init.trunc_normal_(param, std=0.02 / math.sqrt(2 * depth))

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.trunc_normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
