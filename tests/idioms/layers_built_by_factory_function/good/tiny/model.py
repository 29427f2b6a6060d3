"""The stack: it gives the feed-forward writers the GPT-2 depth factor."""
import math

import torch.nn as nn

from tiny.block import Block


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        for name, param in self.named_parameters():
            if name.endswith(("ffn.w3.weight", "attn.out_proj.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
