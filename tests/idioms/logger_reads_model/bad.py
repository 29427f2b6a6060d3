"""The model logs itself with a module-level logger after its init; the logger only reads it, so
the init before stands (the writers keep the base std)."""

import logging

import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


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
    def __init__(self, width=128, depth=6, init_std=0.02):
        super().__init__()
        self.embed = nn.Embedding(1000, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        for param in self.parameters():
            if param.dim() == 2:
                nn.init.normal_(param, std=init_std)
        logger.debug(self)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
