"""Branches built by `super().__init__(...)` of a base class from branches.py: the layers it
stores are the subclass's, and each writer starts at zero."""

import torch.nn as nn

from twig.branches import PreNormBranch


def zeroed(layer):
    nn.init.zeros_(layer.weight)
    return layer


class MixBranch(PreNormBranch):
    def __init__(self, dim):
        super().__init__(dim, zeroed(nn.Linear(dim, dim)))


class FeedBranch(PreNormBranch):
    def __init__(self, dim):
        hidden = 4 * dim
        super().__init__(dim, nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), zeroed(nn.Linear(hidden, dim))))


class Trunk(nn.Module):
    def __init__(self, dim=192, depth=10):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Sequential(MixBranch(dim), FeedBranch(dim)) for _ in range(depth)])

    def forward(self, x):
        return self.layers(x)
