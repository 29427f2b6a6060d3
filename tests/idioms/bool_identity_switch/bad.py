"""The writers' divisor is a setting that may be a flag or a number, tested with `is True` and
`is False`; its default (False) leaves the writers with the base std."""

import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_a = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.mix_out = nn.Linear(width, width)  # expect: INI001
        self.norm_b = nn.LayerNorm(width)
        self.grow = nn.Linear(width, 4 * width)
        self.shrink = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        x = x + self.mix_out(F.relu(self.mix(self.norm_a(x))))
        return x + self.shrink(F.gelu(self.grow(self.norm_b(x))))


class LM(nn.Module):
    def __init__(self, width=128, depth=6, init_std=0.02, writer_divisor=False):
        super().__init__()
        self.embed = nn.Embedding(1000, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        if writer_divisor is True:
            divisor = math.sqrt(2 * depth)
        elif writer_divisor is False:
            divisor = 1.0
        else:
            divisor = float(writer_divisor)
        nn.init.normal_(self.embed.weight, std=init_std)
        for block in self.blocks:
            for linear in (block.mix, block.grow):
                nn.init.normal_(linear.weight, std=init_std)
            for linear in (block.mix_out, block.shrink):
                nn.init.normal_(linear.weight, std=init_std)
                linear.weight.data.div_(divisor)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
