"""bad.py with both writers given the GPT-2 depth factor by the tower's init loop (the blocks
still `nn.Sequential` subclasses of residual wrappers)."""

import math

from torch import nn


class AddBack(nn.Module):
    def __init__(self, branch):
        super().__init__()
        self.branch = branch

    def forward(self, x):
        kept = x
        x = self.branch(x)
        x += kept
        return x


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Linear(width, width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return self.proj(self.mix(x).tanh() * x)


class TwoLayer(nn.Sequential):
    def __init__(self, width, hidden):
        super().__init__(
            nn.Linear(width, hidden),
            nn.ReLU(),
            nn.Linear(hidden, width),
            nn.Dropout(0.1),
        )


class Stage(nn.Sequential):
    def __init__(self, width):
        super().__init__(
            AddBack(nn.Sequential(nn.LayerNorm(width), Mixer(width))),
            AddBack(nn.Sequential(nn.LayerNorm(width), TwoLayer(width, 4 * width))),
        )


class Tower(nn.Module):
    def __init__(self, width=128, depth=10):
        super().__init__()
        self.stages = nn.Sequential(*[Stage(width) for _ in range(depth)])
        self.head = nn.Linear(width, 2)
        for stage in self.stages:
            nn.init.normal_(stage[0].branch[1].proj.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(stage[1].branch[1][2].weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        return self.head(self.stages(x))
