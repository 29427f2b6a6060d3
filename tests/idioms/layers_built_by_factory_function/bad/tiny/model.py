"""The stack: it leaves every init to the layers."""
import torch.nn as nn

from tiny.block import Block


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
