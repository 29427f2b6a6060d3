"""A std read off the weight's own shape (`1 / sqrt(weight.shape[1])`, the fan-in of a Linear): a
layer size, never the depth, so the residual writers it draws have no depth factor."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001
        self.norm_2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v))
        return x + self.down(F.gelu(self.up(self.norm_2(x))))


class Model(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, 0.0, 1.0 / math.sqrt(module.weight.shape[1]))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
