"""Blocks filled into a dict by a loop and stacked as `nn.Sequential(dict)`; both residual writers
get std / sqrt(2 * depth)."""
import math
from collections import OrderedDict

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm_a = nn.LayerNorm(width)
        self.mix = nn.MultiheadAttention(width, heads, batch_first=True)
        self.drop = nn.Dropout(0.1)
        self.norm_b = nn.LayerNorm(width)
        self.ff = nn.Sequential(
            nn.Linear(width, 4 * width),
            nn.GELU(),
            nn.Linear(4 * width, width),
        )

    def forward(self, stream):
        h = self.norm_a(stream)
        h, _ = self.mix(h, h, h, need_weights=False)
        h = self.drop(h)
        h = h + stream
        return h + self.ff(self.norm_b(h))


class Encoder(nn.Module):
    def __init__(self, width, heads, depth):
        super().__init__()
        blocks: OrderedDict[str, nn.Module] = OrderedDict()
        for i in range(depth):
            blocks[f"block_{i}"] = Block(width, heads)
        self.blocks = nn.Sequential(blocks)
        self.norm = nn.LayerNorm(width)
        writer_std = 0.02 / math.sqrt(2 * depth)
        for block in self.blocks:
            nn.init.normal_(block.mix.out_proj.weight, std=writer_std)
            nn.init.normal_(block.ff[2].weight, std=writer_std)

    def forward(self, x):
        return self.norm(self.blocks(x))


def encoder_small():
    return Encoder(width=256, heads=4, depth=12)
