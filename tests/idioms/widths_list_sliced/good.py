"""A residual MLP block built from a list of widths (`[dim, hidden, dim]`), one Linear per
pair of neighbouring widths (`zip(widths[:-1], widths[1:])`): the last writes into the
stream, scaled by the number of blocks after the xavier init every Linear gets."""
import math

import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.Linear(w_in, w_out) for w_in, w_out in zip(widths[:-1], widths[1:])]
        )

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.gelu(x)
        return x


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = MLP([dim, 4 * dim, dim])

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class ResMLP(nn.Module):
    def __init__(self, dim=128, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.apply(self._init)
        for block in self.blocks:
            nn.init.normal_(block.mlp.layers[-1].weight, std=0.02 / math.sqrt(depth))

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.xavier_uniform_(module.weight)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
