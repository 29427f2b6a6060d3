"""A segmentation network whose encoder stacks the blocks next door with pre-norm switched on."""

import torch.nn as nn

from seg.blocks import Block


class Segmenter(nn.Module):
    def __init__(self, width=128, hidden=512, num_layers=12, classes=3):
        super().__init__()
        self.embed = nn.Linear(16, width)
        self.layers = nn.ModuleList([Block(width, hidden, prenorm=True) for _ in range(num_layers)])
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)
