import torch.nn as nn

from block import Block


class Encoder(nn.Module):
    def __init__(self, dim=256, heads=8, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
