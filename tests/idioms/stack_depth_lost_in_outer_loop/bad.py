"""A hierarchy of stacks built in a loop over tuples the root is given: the root's copy of each
stack has no readable depth, so the stack class is analysed on its own with its depth argument
as a symbol. Nothing initialises the writers: PyTorch's default init stays."""

from itertools import zip_longest

import torch
from torch import nn


class ScaleNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.gain


def feed_forward(width):
    return nn.Sequential(
        ScaleNorm(width),
        nn.Linear(width, 3 * width),
        nn.GELU(),
        nn.Linear(3 * width, width),  # expect: INI001
    )


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = ScaleNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)  # expect: INI001

    def forward(self, x):
        x = self.norm(x)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v)


class Stage(nn.Module):
    def __init__(self, *, width, n_layers):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(n_layers):
            self.layers.append(nn.ModuleList([Mixer(width), feed_forward(width)]))

    def forward(self, x):
        for mix, ff in self.layers:
            x = mix(x) + x
            x = ff(x) + x
        return x


class Pyramid(nn.Module):
    def __init__(self, *, widths: tuple, depths: tuple):
        super().__init__()
        self.stages = nn.ModuleList([])
        for width, n_layers in zip_longest(widths, depths):
            self.stages.append(Stage(width=width, n_layers=n_layers))

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x
