"""A segmentation network whose encoder stacks the blocks next door with pre-norm switched on, then
draws both writers smaller by the square root of twice the depth."""

import math

import torch.nn as nn

from seg.blocks import Block


class Segmenter(nn.Module):
    def __init__(self, width=128, hidden=512, num_layers=12, classes=3):
        super().__init__()
        self.embed = nn.Linear(16, width)
        self.layers = nn.ModuleList([Block(width, hidden, prenorm=True) for _ in range(num_layers)])
        self.head = nn.Linear(width, classes)
        for layer in self.layers:
            nn.init.normal_(layer.out.weight, std=0.02 / math.sqrt(2 * num_layers))
            nn.init.normal_(layer.down.weight, std=0.02 / math.sqrt(2 * num_layers))

    def forward(self, x):
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)
