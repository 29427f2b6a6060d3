"""The owner's loop walks the indices of the block list and takes each block by its index."""

import torch.nn as nn


class PreNorm(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x))


class Encoder(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        self.depth = depth
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            attn = PreNorm(dim, nn.Linear(dim, dim))  # expect: INI001
            ff = PreNorm(dim, nn.Linear(dim, dim))  # expect: INI001
            self.layers.append(nn.ModuleList([attn, ff]))

    def forward(self, x):
        for i in range(self.depth):
            attn, ff = self.layers[i]
            x = attn(x) + x
            x = ff(x) + x
        return x


class Tower(nn.Module):
    def __init__(self, width=128, n_layer=4):
        super().__init__()
        self.blocks = nn.ModuleList([PreNorm(width, nn.Linear(width, width)) for _ in range(n_layer)])  # expect: INI001

    def forward(self, h):
        for index in range(len(self.blocks)):
            h = h + self.blocks[index](h)
        return h
