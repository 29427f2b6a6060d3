"""The model offers a per-module init hook for a trainer to apply (`param_init_fn`) besides the
init its constructor runs; applied or not, the writers are scaled by
1/sqrt(2 * depth)."""

import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_a = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.mix_out = nn.Linear(width, width)
        self.norm_b = nn.LayerNorm(width)
        self.grow = nn.Linear(width, 4 * width)
        self.shrink = nn.Linear(4 * width, width)
        self.mix_out.is_writer = True
        self.shrink.is_writer = True

    def forward(self, x):
        x = x + self.mix_out(F.relu(self.mix(self.norm_a(x))))
        return x + self.shrink(F.gelu(self.grow(self.norm_b(x))))


class LM(nn.Module):
    def __init__(self, width=128, depth=6, init_std=0.02):
        super().__init__()
        self.depth = depth
        self.init_std = init_std
        self.embed = nn.Embedding(1000, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.apply(self._init_module)

    def _init_module(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            std = self.init_std
            if getattr(module, "is_writer", False):
                std = std / math.sqrt(2 * self.depth)
            nn.init.normal_(module.weight, std=std)

    def param_init_fn(self, module):
        self._init_module(module)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
