"""A pre-norm residual conv stack whose blocks are handed to `nn.ModuleList(modules=...)` by
keyword; the branch's last 1x1 convolution is drawn with std / sqrt(depth), one add per block."""
import math

import torch.nn as nn


class DilatedBlock(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.norm = nn.LayerNorm(channels)
        self.act = nn.GELU()
        self.mix = nn.Conv1d(channels, channels, 3, dilation=dilation, padding=dilation)
        self.project = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        h = self.act(self.norm(x)).transpose(1, 2)
        return x + self.project(self.mix(h)).transpose(1, 2)


class DilatedNet(nn.Module):
    def __init__(self, channels, depth, cycle=4):
        super().__init__()
        dilations = [2 ** (n % cycle) for n in range(depth)]
        blocks = [DilatedBlock(channels, d) for d in dilations]
        self.blocks = nn.ModuleList(modules=blocks)
        for block in self.blocks:
            nn.init.normal_(block.project.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
