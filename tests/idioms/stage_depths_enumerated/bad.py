"""A hierarchical encoder handed the number of blocks of each stage (`depths`, no default),
walked with its stage index (`for stage, depth in enumerate(depths):`), each stage's blocks
built in a loop nested in it: `sum(depths)` pre-norm blocks in one stream. Nothing scales the
writers."""

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.down(self.up(self.norm(x)).relu())


class Encoder(nn.Module):
    def __init__(self, width, depths):
        super().__init__()
        self.blocks = nn.ModuleList()
        self.stage_of = []
        for stage, depth in enumerate(depths):
            for _ in range(depth):
                self.blocks.append(Block(width))
                self.stage_of.append(stage)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
