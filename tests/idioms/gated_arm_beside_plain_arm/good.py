"""Every other block mixes with a convolution behind a LayerScale gain that starts at 1e-5 (a
deliberate small start); the others with a plain MLP. Which arm runs is the block's flag, read
in `forward`: the gain gates the convolution's arm only, so the MLP's writer is a plain residual
writer on its path, scaled here by the depth."""
import torch
import torch.nn as nn


class Gain(nn.Module):
    def __init__(self, dim, start=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(start * torch.ones(dim))

    def forward(self, x):
        return x * self.gamma


class Block(nn.Module):
    def __init__(self, dim, use_conv, depth):
        super().__init__()
        self.use_conv = use_conv
        self.norm = nn.LayerNorm(dim)
        if use_conv:
            self.conv = nn.Conv1d(dim, dim, 3, padding=1)
            self.gain = Gain(dim)
        else:
            self.up = nn.Linear(dim, 4 * dim)
            self.down = nn.Linear(4 * dim, dim)
            nn.init.normal_(self.down.weight, std=0.02 / depth**0.5)

    def forward(self, x):
        h = self.norm(x)
        if self.use_conv:
            out = self.gain(self.conv(h.transpose(1, 2)).transpose(1, 2))
        else:
            out = self.down(self.up(h).relu())
        return x + out


class Model(nn.Module):
    def __init__(self, dim=128, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, use_conv=i % 2 == 0, depth=depth) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
