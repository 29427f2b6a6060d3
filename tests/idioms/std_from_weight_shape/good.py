"""A std read off the weight's own shape (`weight.size(1) ** -0.5`, the fan-in of a Linear), and
the residual writers' divided again by sqrt(2 * n_layer): GPT-2's depth factor on a fan-in std."""
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
                nn.init.normal_(module.weight, 0.0, module.weight.size(1) ** -0.5)
        for block in self.blocks:
            for writer in (block.out, block.down):
                std = writer.weight.size(-1) ** -0.5 / math.sqrt(2 * n_layer)
                nn.init.normal_(writer.weight, 0.0, std)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
