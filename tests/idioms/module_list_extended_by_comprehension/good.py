"""An empty ModuleList filled by one `extend` of a comprehension; the writers are scaled by
1/sqrt(depth), one add per block."""
import math

import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, dim, drop=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return x + self.drop(self.fc2(self.fc1(self.norm(x)).relu()))


class Tower(nn.Module):
    def __init__(self, dim=128, depth=8, max_drop=0.2):
        super().__init__()
        rates = [max_drop * i / depth for i in range(depth)]
        self.blocks = nn.ModuleList([])
        self.blocks.extend([Residual(dim, drop=rates[i]) for i in range(depth)])
        for blk in self.blocks:
            nn.init.normal_(blk.fc2.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x
