"""A pre-norm stack whose branches pass through the stochastic depth module of regularize.py on
their way into the stream. The writers get 0.02 / sqrt(2 * depth)."""

import math

import torch.nn as nn

from skipdepth.regularize import SkipBranch


class Block(nn.Module):
    def __init__(self, dim, rate):
        super().__init__()
        self.norm_a = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm_m = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        self.skip = SkipBranch(rate)

    def attend(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)

    def forward(self, x):
        x = x + self.skip(self.attend(self.norm_a(x)))
        return x + self.skip(self.down(self.up(self.norm_m(x)).relu()))


class Net(nn.Module):
    def __init__(self, dim=256, depth=12, rate=0.1):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim, rate * i / depth) for i in range(depth)])
        self.apply(self._init_linear)
        for block in self.blocks:
            nn.init.normal_(block.out.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.down.weight, std=0.02 / math.sqrt(2 * depth))

    def _init_linear(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)

    def forward(self, x):
        return self.blocks(x)
