"""A patch discriminator that may condition on text: its text tower is built from a config dict
only when one is given (`text_tower=None` by default), and its init code (`self.apply`) gives
every Linear a Kaiming init. Built with a dict, the tower's writers end with that init: no
depth factor. The tower is judged as that model builds it, with the `if` taken."""

import torch
import torch.nn as nn


class TextBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)  # expect: INI001

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
        if type(module) in {nn.Conv2d, nn.Linear}:
            nn.init.kaiming_normal_(module.weight, a=0.2, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, images):
        return self.convs(images)
