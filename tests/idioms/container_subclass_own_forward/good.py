"""bad.py with each writer drawn at 0.02 / sqrt(2 * depth), and a real list subclass beside it:
a `ModuleList` subclass given its layers, without a `forward` of its own, is iterated as a list."""

import math

from torch import nn


class NormFirst(nn.ModuleList):
    def __init__(self, width, body):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.body = body

    def forward(self, x):
        return self.body(self.norm(x))


class Mixer(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.inner = nn.Linear(width, 2 * width)
        self.outer = nn.Linear(2 * width, width)
        nn.init.normal_(self.outer.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        return self.outer(self.inner(x).tanh())


class Steps(nn.ModuleList):
    def __init__(self, width, depth):
        super().__init__([NormFirst(width, Mixer(width, depth)) for _ in range(depth)])


class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.steps = Steps(width, depth)
        self.final_norm = nn.LayerNorm(width)

    def forward(self, x):
        for step in self.steps:
            x = x + step(x)
        return self.final_norm(x)
