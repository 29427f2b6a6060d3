"""Residual branches applied through a helper of calls.py, imported at the top of the file or
inside `forward`. PyTorch's default init on both writers, no depth factor."""

import torch.nn as nn

from leaf.calls import call_layer


class MixBranch(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mix = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x, **extra):
        return x + call_layer(self.mix, self.norm(x), **extra)


class FeedBranch(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.net = nn.Sequential(nn.Linear(dim, 3 * dim), nn.SiLU(), nn.Linear(3 * dim, dim))  # expect: INI001

    def forward(self, x, **extra):
        from leaf.calls import call_layer as apply

        return x + apply(self.net, self.norm(x), **extra)


class Column(nn.Module):
    def __init__(self, dim=64, depth=12):
        super().__init__()
        self.layers = nn.ModuleList([nn.ModuleList([MixBranch(dim), FeedBranch(dim)]) for _ in range(depth)])

    def forward(self, x):
        for mix, feed in self.layers:
            x = feed(mix(x))
        return x
