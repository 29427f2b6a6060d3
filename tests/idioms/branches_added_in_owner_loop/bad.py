"""Feed-forward branches in one list, their norms in another, walked side by side.

Each layer's own `forward` adds nothing: the owner's loop adds every branch back onto the
pre-norm stream, `depth` residual adds in all, and the branch outputs keep PyTorch's default init.
"""

import torch.nn as nn
import torch.nn.functional as F


class Branch(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.widen = nn.Linear(width, 4 * width)
        self.narrow = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.narrow(F.gelu(self.widen(x)))


class ResidualMlp(nn.Module):
    def __init__(self, width=128, depth=16):
        super().__init__()
        self.norms = nn.ModuleList([nn.LayerNorm(width) for _ in range(depth)])
        self.branches = nn.ModuleList([Branch(width) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(width)

    def forward(self, x):
        for norm, branch in zip(self.norms, self.branches):
            x = x + branch(norm(x))
        return self.final_norm(x)
