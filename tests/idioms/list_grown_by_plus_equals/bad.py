"""Blocks gathered with `layers += [...]` in a loop, then put in a container."""

import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return x + self.fn(self.norm(x))


class Net(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers += [Residual(dim, nn.Linear(dim, dim))]  # expect: INI001
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Stack(nn.Module):
    def __init__(self, width=128, n_layer=4):
        super().__init__()
        body = []
        for _ in range(n_layer):
            mix = nn.Linear(width, width)  # expect: INI001
            body += [Residual(width, mix)]
        self.body = nn.Sequential(*body)

    def forward(self, h):
        return self.body(h)
