"""The same alternating blocks, their writers scaled by 1/sqrt(2 * depth)."""

import math

import torch.nn as nn


class PreNormResidual(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x)) + x


class Mixer(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(self.attn(x, x, x, need_weights=False)[0])


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.down(self.up(x).relu())


class Model(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers.append(PreNormResidual(dim, Mixer(dim)))
            layers.append(PreNormResidual(dim, FeedForward(dim)))
        self.net = nn.Sequential(*layers, nn.LayerNorm(dim))
        for name, param in self.named_parameters():
            if name.endswith(("proj.weight", "down.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        return self.net(x)
