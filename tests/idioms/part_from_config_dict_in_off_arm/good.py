"""The same discriminator whose init code scales the text tower's writers by the number of
adds when it builds the tower: judged as built with the `if` taken, the tower is right, and
nothing is reported."""

import math

import torch
import torch.nn as nn


class TextBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.out(nn.functional.scaled_dot_product_attention(q, k, v))
        return x + self.fc2(torch.relu(self.fc1(self.norm2(x))))


class TextTower(nn.Module):
    def __init__(self, *, width, depth):
        super().__init__()
        self.width = width
        self.depth = depth
        self.blocks = nn.ModuleList([TextBlock(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class PatchDiscriminator(nn.Module):
    def __init__(self, channels=3, hidden=64, text_tower: TextTower | dict | None = None):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(channels, hidden, 4, stride=2), nn.LeakyReLU(0.2), nn.Conv2d(hidden, 1, 4)
        )
        if isinstance(text_tower, dict):
            text_tower = TextTower(**text_tower)
        self.text_tower = text_tower
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Conv2d):
            nn.init.kaiming_normal_(module.weight, a=0.2, mode="fan_in", nonlinearity="leaky_relu")
        elif isinstance(module, TextTower):
            std = 0.02 / math.sqrt(2 * module.depth)
            for block in module.blocks:
                nn.init.normal_(block.out.weight, std=std)
                nn.init.normal_(block.fc2.weight, std=std)
