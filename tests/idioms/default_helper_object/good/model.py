"""Blocks pass through the default placement object before they are stacked: the object hands
each block back, and the init scales both writers by the depth of the stack."""

import math

import torch.nn as nn
import torch.nn.functional as F

from placement import LOCAL


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Model(nn.Module):
    def __init__(self, width=256, n_layer=8, placement=LOCAL):
        super().__init__()
        self.placement = placement
        blocks = []
        for i in range(n_layer):
            block = Block(width)
            block = self.placement.place(block, i)
            blocks.append(block)
        self.blocks = nn.ModuleList(blocks)
        for name, param in self.named_parameters():
            if name.endswith(("out.weight", "down.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layer))
            elif name.endswith("weight") and param.dim() == 2:
                nn.init.normal_(param, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
