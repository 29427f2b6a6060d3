"""Layers numbered from 1 (`for number in range(1, depth + 1)`), some with an extra
sub-layer picked by that number: the loop still builds `depth` blocks. PyTorch's default
init on both writers, no depth factor."""

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
        self.down = nn.Linear(hidden, dim)  # expect: INI001

    def forward(self, x):
        return self.down(self.act(self.up(x)))


class Tower(nn.Module):
    def __init__(self, dim=256, depth=8, wide_layers=None):
        super().__init__()
        self.layers = nn.ModuleList()
        for number in range(1, depth + 1):
            wide = wide_layers is not None and number in wide_layers
            self.layers.append(
                nn.ModuleList(
                    [
                        PreNormResidual(dim, nn.Linear(dim, dim)),  # expect: INI001
                        PreNormResidual(dim, Mixer(dim, (8 if wide else 4) * dim)),
                    ]
                )
            )

    def forward(self, x):
        for mix, mlp in self.layers:
            x = mlp(mix(x))
        return x
