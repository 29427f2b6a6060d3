"""bad.py with the MLP output drawn at 0.02 / sqrt(depth) by the network once its layers are
built from the configs."""

import math
from dataclasses import dataclass, field

from torch import nn


class Expand(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.grow = nn.Linear(width, hidden)
        self.shrink = nn.Linear(hidden, width)

    def forward(self, x):
        return self.shrink(self.grow(x).relu())


@dataclass
class ExpandConfig:
    factor: int = 4

    def build(self, width):
        return Expand(width, self.factor * width)


class Layer(nn.Module):
    def __init__(self, width, expand, eps):
        super().__init__()
        self.norm = nn.LayerNorm(width, eps=eps)
        self.expand = expand.build(width)

    def forward(self, x):
        return x + self.expand(self.norm(x))


@dataclass
class LayerConfig:
    expand: ExpandConfig = field(default_factory=ExpandConfig)
    eps: float = 1e-5

    def build(self, width):
        return Layer(width, self.expand, self.eps)


class Network(nn.Module):
    def __init__(self, width, depth, layer: LayerConfig):
        super().__init__()
        self.layers = nn.ModuleList([layer.build(width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        for each in self.layers:
            nn.init.normal_(each.expand.shrink.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        for each in self.layers:
            x = each(x)
        return self.norm(x)
