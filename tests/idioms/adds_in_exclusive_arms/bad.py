"""A block with two paths, one for a conditioning gate and one without, the first returning
early: one path runs, so each block adds 2 branches (N = 2 * n_layer) and 1/sqrt(n_layer)
counts the blocks."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm_2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def attend(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v))

    def mlp(self, x):
        return self.down(F.gelu(self.up(self.norm_2(x))))

    def forward(self, x, gate=None):
        if gate is None:
            x = x + self.attend(x)
            return x + self.mlp(x)
        x = x + (1.0 + gate) * self.attend(x)
        return x + (1.0 + gate) * self.mlp(x)


class Model(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for block in self.blocks:
            for writer in (block.out, block.down):
                nn.init.normal_(writer.weight, 0.0, 0.02 / math.sqrt(n_layer))  # expect: INI002

    def forward(self, x, gate=None):
        for block in self.blocks:
            x = block(x, gate)
        return x
