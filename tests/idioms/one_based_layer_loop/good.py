"""Layers numbered from 1 (`for number in range(1, depth + 1)`): `depth` blocks, and the
writers drawn with 0.02 / sqrt(2 * depth), as GPT-2 does."""

import math

import torch.nn as nn


class PreNormResidual(nn.Module):
    def __init__(self, dim, inner):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.inner = inner

    def forward(self, x):
        return x + self.inner(self.norm(x))


class Mixer(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(self.act(self.up(x)))


class Tower(nn.Module):
    def __init__(self, dim=256, depth=8, wide_layers=None):
        super().__init__()
        self.layers = nn.ModuleList()
        for number in range(1, depth + 1):
            wide = wide_layers is not None and number in wide_layers
            mix = nn.Linear(dim, dim)
            mlp = Mixer(dim, (8 if wide else 4) * dim)
            for writer in (mix, mlp.down):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * depth))
            self.layers.append(nn.ModuleList([PreNormResidual(dim, mix), PreNormResidual(dim, mlp)]))

    def forward(self, x):
        for mix, mlp in self.layers:
            x = mlp(mix(x))
        return x
