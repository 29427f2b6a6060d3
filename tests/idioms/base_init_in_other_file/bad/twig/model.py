"""Branches built by `super().__init__(...)` of a base class from branches.py: the layers it
stores are the subclass's. PyTorch's default init on the writers, no depth factor."""

import torch.nn as nn

from twig.branches import PreNormBranch


class MixBranch(PreNormBranch):
    def __init__(self, dim):
        super().__init__(dim, nn.Linear(dim, dim))  # expect: INI001


class FeedBranch(PreNormBranch):
    def __init__(self, dim):
        hidden = 4 * dim
        down = nn.Linear(hidden, dim)  # expect: INI001
        super().__init__(dim, nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), down))


class Trunk(nn.Module):
    def __init__(self, dim=192, depth=10):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Sequential(MixBranch(dim), FeedBranch(dim)) for _ in range(depth)])

    def forward(self, x):
        return self.layers(x)
