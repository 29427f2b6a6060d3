"""`Repeated(lambda: Layer(width), depth)`: the lambda runs in stacking.py but builds this
module's `Layer` with this constructor's `width`. The writer starts at zero."""

import torch.nn as nn

from twig.stacking import Repeated


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(2 * width, width)
        nn.init.zeros_(self.down.weight)

    def forward(self, x):
        return x + self.down(self.up(self.norm(x)).tanh())


class Stack(nn.Module):
    def __init__(self, width=128, depth=16):
        super().__init__()
        self.body = Repeated(lambda: Layer(width), depth)
        self.out_norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.out_norm(self.body(x))
