"""`forward` fixes a layer's keyword settings with `functools.partial` and then applies the
partial to the normed stream (`fn = partial(fn, mask=mask)`, `fn(h)`): the layer runs on `h`, so
its writer writes the branch added back. Pre-norm, writers at PyTorch's default init: no depth
factor. Two shapes: a name rebound to the partial of itself, and `partial` imported under its
module's name, bound to a fresh name."""
import functools
from functools import partial

import torch
import torch.nn as nn


class Attend(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, h, mask=None):
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2)
        if mask is not None:
            scores = scores.masked_fill(mask, -1e9)
        return self.out(scores.softmax(-1) @ v)


class Net(nn.Module):
    def __init__(self, width=64, depth=8):
        super().__init__()
        self.norms = nn.ModuleList([nn.LayerNorm(width) for _ in range(depth)])
        self.attns = nn.ModuleList([Attend(width) for _ in range(depth)])

    def forward(self, h, mask=None):
        for norm, fn in zip(self.norms, self.attns):
            fn = partial(fn, mask=mask)
            h = h + fn(norm(h))
        return h


class Expand(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, h, scale=1.0):
        return self.down(torch.relu(self.up(h)) * scale)


class Tower(nn.Module):
    def __init__(self, width=32, n_layer=4):
        super().__init__()
        self.blocks = nn.ModuleList([nn.ModuleList([nn.RMSNorm(width), Expand(width)]) for _ in range(n_layer)])

    def forward(self, h):
        for norm, expand in self.blocks:
            run = functools.partial(expand, scale=0.5)
            normed = norm(h)
            h = run(normed) + h
        return h
