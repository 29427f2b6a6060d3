"""A hand-written linear layer that multiplies by its weight's transpose, taken as an attribute
(`x @ self.weight.mT`), drawn with the depth factor 1/sqrt(N) where it writes the residual
stream (one add per block, N = n_layer)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Dense(nn.Module):
    def __init__(self, d_in, d_out, std=0.02):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * std)

    def forward(self, x):
        return x @ self.weight.mT


class Block(nn.Module):
    def __init__(self, width, n_layer):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = Dense(width, 4 * width)
        self.down = Dense(4 * width, width, std=0.02 / math.sqrt(n_layer))

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class Model(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, n_layer) for _ in range(n_layer)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
