"""The root takes its sizes as keyword-only parameters (`def __init__(self, *, width, depth=6)`)
and unrolls its stack in a loop, half the layers with a skip projection. Those sizes are symbols
as positional ones are. The writer is drawn with 0.02 / sqrt(depth), one add per layer."""

import math

import torch
import torch.nn as nn


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)


class Skipper(nn.Module):
    def __init__(self, *, width, depth=6, heads=4):
        super().__init__()
        self.depth = depth
        self.layers = nn.ModuleList([])
        for index in range(depth):
            merge = nn.Linear(2 * width, width) if index >= depth // 2 else None
            self.layers.append(nn.ModuleList([merge, nn.LayerNorm(width), Mixer(width)]))
        for _, _, mixer in self.layers:
            nn.init.normal_(mixer.out.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        saved = []
        for index, (merge, norm, mixer) in enumerate(self.layers):
            if index < self.depth // 2:
                saved.append(x)
            else:
                x = merge(torch.cat((x, saved.pop()), dim=-1))
            x = mixer(norm(x)) + x
        return x
