"""A hand-written linear layer that multiplies by its weight's transpose, taken as an attribute
(`x @ self.weight.T`): that weight writes the branch, and its plain 0.02 has no depth factor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Dense(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * 0.02)

    def forward(self, x):
        return x @ self.weight.T


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = Dense(4 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class Model(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
