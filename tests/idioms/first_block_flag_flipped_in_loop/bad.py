"""Blocks stacked by a loop that hands the first block a flag and then flips it (`is_first =
False`): the first block adds its attention without a norm (its input is the embedding), every
later block pre-norm. The writers keep PyTorch's default init: no depth factor."""
import torch.nn as nn


class PreNormResidual(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, branch):
        return x + branch(self.norm(x))


class Layer(nn.Module):
    def __init__(self, dim, is_first):
        super().__init__()
        self.is_first = is_first
        self.mix = nn.Linear(dim, dim)  # expect: INI001
        self.mlp = nn.Sequential(
            nn.Linear(dim, 4 * dim),
            nn.GELU(),
            nn.Linear(4 * dim, dim),  # expect: INI001
        )
        self.mix_residual = PreNormResidual(dim)
        self.mlp_residual = PreNormResidual(dim)

    def forward(self, x):
        if self.is_first:
            x = x + self.mix(x)
        else:
            x = self.mix_residual(x, self.mix)
        return self.mlp_residual(x, self.mlp)


class Encoder(nn.Module):
    def __init__(self, dim=128, n_layers=6):
        super().__init__()
        self.layers = nn.Sequential()
        is_first = True
        for i in range(n_layers):
            self.layers.add_module(f"layer{i}", Layer(dim, is_first))
            is_first = False

    def forward(self, x):
        return self.layers(x)
