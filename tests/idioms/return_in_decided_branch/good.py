"""bad.py with the MLP's last linear drawn at 0.02 / sqrt(depth), one residual add per layer
(the wrapper still returning from inside its `if`)."""

import math

from torch import nn


class MaybeResidual(nn.Module):
    def __init__(self, inner, add_input=True):
        super().__init__()
        self.add_input = add_input
        self.inner = inner

    def forward(self, x):
        if self.add_input:
            return x + self.inner(x)
        return self.inner(x)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(self.up(self.norm(x)).relu())


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mlp = MaybeResidual(Block(width))

    def forward(self, x):
        return self.mlp(x)


class Model(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])
        for layer in self.layers:
            nn.init.normal_(layer.mlp.inner.down.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
