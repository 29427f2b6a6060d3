"""A block whose one branch is added in one of two arms of an `if` (gated when a condition is
given, plain otherwise): one arm runs, so each block adds 1 branch, N = n_layer, and
1/sqrt(n_layer) is the right factor."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x, gate=None):
        h = self.down(F.gelu(self.up(self.norm(x))))
        if gate is not None:
            x = x + (1.0 + gate) * h
        else:
            x = x + h
        return x


class Model(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for block in self.blocks:
            nn.init.normal_(block.down.weight, 0.0, 0.02 / math.sqrt(n_layer))

    def forward(self, x, gate=None):
        for block in self.blocks:
            x = block(x, gate)
        return x
