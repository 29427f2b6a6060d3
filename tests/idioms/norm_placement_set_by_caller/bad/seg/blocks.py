"""A block whose norm placement is a constructor flag, post-norm unless told otherwise, and the
plain encoder of this file, which keeps that default. The segmenter next door stacks the same
block with the flag on: there it is a pre-norm stack, and nothing initialises the writers."""

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, hidden, prenorm=False):
        super().__init__()
        self.prenorm = prenorm
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)  # expect: INI001
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)  # expect: INI001
        self.norm_1 = nn.LayerNorm(width)
        self.norm_2 = nn.LayerNorm(width)

    def attend(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)

    def forward(self, x):
        if self.prenorm:
            y = self.attend(self.norm_1(x)) + x
            return self.down(self.up(self.norm_2(y)).relu()) + y
        y = self.norm_1(self.attend(x) + x)
        return self.norm_2(self.down(self.up(y).relu()) + y)


class Encoder(nn.Module):
    def __init__(self, width, hidden=256, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([Block(width, hidden) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
