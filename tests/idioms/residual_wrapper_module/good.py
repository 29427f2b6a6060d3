"""Blocks wrapped by a pre-norm residual module whose `forward` adds its input back (also for a
tuple output); the writers get std/sqrt(2 * n_blocks)."""

from functools import partial

import math

import torch
from torch import nn


class PreNormAdd(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.inner = inner
        self.norm = nn.LayerNorm(width)

    def forward(self, x, **extra):
        y = self.inner(self.norm(x), **extra)
        if isinstance(y, tuple):
            first, *rest = y
            return (first + x, *rest)
        return y + x


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        mixed = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
        return self.out(mixed), k


class Expand(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(width, 2 * width),
            nn.SiLU(),
            nn.Linear(2 * width, width),
        )

    def forward(self, x):
        return self.layers(x)


class Net(nn.Module):
    def __init__(self, width, n_blocks):
        super().__init__()
        residual = partial(PreNormAdd, width)
        self.blocks = nn.ModuleList(
            [nn.ModuleList([residual(Mixer(width)), residual(Expand(width))]) for _ in range(n_blocks)]
        )
        self.head = nn.Linear(width, 10)
        for mix, expand in self.blocks:
            nn.init.normal_(mix.inner.out.weight, std=0.02 / math.sqrt(2 * n_blocks))
            nn.init.normal_(expand.inner.layers[2].weight, std=0.02 / math.sqrt(2 * n_blocks))

    def forward(self, x):
        for mix, expand in self.blocks:
            x, keys = mix(x)
            x = expand(x)
        return self.head(x)
