"""Each block first adds a learned position bias to the stream through a small module whose
`forward` returns `x + bias`, the bias computed by an MLP from fixed coordinates, not from `x`:
the module hands the stream on. The writers then get a flat std 0.02, no depth factor."""

import torch
from torch import nn


class PositionBias(nn.Module):
    def __init__(self, width, tokens):
        super().__init__()
        self.table = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, width))
        self.tokens = tokens
        self.cached = None

    def forward(self, x):
        coords = torch.linspace(-1, 1, self.tokens * 2).view(1, self.tokens, 2)
        self.cached = self.table(coords)
        x = x + self.cached
        return x


class Block(nn.Module):
    def __init__(self, width, tokens):
        super().__init__()
        self.position = PositionBias(width, tokens)
        self.norm1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        x = self.position(x)
        x = x + self.mix(self.norm1(x))
        return x + self.down(torch.relu(self.up(self.norm2(x))))


class Net(nn.Module):
    def __init__(self, width=64, tokens=16, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, tokens) for _ in range(depth)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.trunc_normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
