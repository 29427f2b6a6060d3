"""Feed-forward branches in one list, their norms in another, walked side by side.

The owner's loop adds every branch back onto the pre-norm stream, `depth` residual adds in all;
each branch output starts at 0.02/sqrt(depth), the GPT-2 factor for that many adds.
"""

import math

import torch.nn as nn
import torch.nn.functional as F


class Branch(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.widen = nn.Linear(width, 4 * width)
        self.narrow = nn.Linear(4 * width, width)
        nn.init.normal_(self.narrow.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        return self.narrow(F.gelu(self.widen(x)))


class ResidualMlp(nn.Module):
    def __init__(self, width=128, depth=16):
        super().__init__()
        self.norms = nn.ModuleList([nn.LayerNorm(width) for _ in range(depth)])
        self.branches = nn.ModuleList([Branch(width, depth) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(width)

    def forward(self, x):
        for norm, branch in zip(self.norms, self.branches):
            x = x + branch(norm(x))
        return self.final_norm(x)
