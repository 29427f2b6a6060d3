"""The same stacks, rewrapped, with writers zero-initialised or scaled by 1/sqrt(adds)."""

import math

import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return x + self.fn(self.norm(x))


class Encoder(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        layers = nn.ModuleList([])
        for _ in range(depth):
            mixer = nn.Linear(dim, dim)
            nn.init.zeros_(mixer.weight)
            layers.append(Residual(dim, mixer))
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Tower(nn.Module):
    def __init__(self, width=128, n_layer=4):
        super().__init__()
        hidden = nn.Sequential(*[nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width)) for _ in range(n_layer)])
        self.hidden = nn.ModuleList(hidden)
        self.out = nn.Linear(width, 1)
        self.apply(self._init)
        for step in self.hidden:
            nn.init.normal_(step[1].weight, std=0.02 / math.sqrt(n_layer))

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, h):
        for step in self.hidden:
            h = step(h) + h
        return self.out(h)
