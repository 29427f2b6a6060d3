"""The same index loops, with the writers scaled by 1/sqrt(adds) (GPT-2)."""

import math

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
            attn = PreNorm(dim, nn.Linear(dim, dim))
            ff = PreNorm(dim, nn.Linear(dim, dim))
            self.layers.append(nn.ModuleList([attn, ff]))
            for wrapper in (attn, ff):
                nn.init.normal_(wrapper.fn.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for i in range(self.depth):
            attn, ff = self.layers[i]
            x = attn(x) + x
            x = ff(x) + x
        return x


class Tower(nn.Module):
    def __init__(self, width=128, n_layer=4):
        super().__init__()
        self.blocks = nn.ModuleList([PreNorm(width, nn.Linear(width, width)) for _ in range(n_layer)])
        for block in self.blocks:
            nn.init.normal_(block.fn.weight, std=0.02 / math.sqrt(n_layer))

    def forward(self, h):
        for index in range(len(self.blocks)):
            h = h + self.blocks[index](h)
        return h
