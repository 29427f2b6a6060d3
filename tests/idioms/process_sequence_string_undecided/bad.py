"""Process blocks spelled as strings, the strings given as the model's own parameter defaults
(`pre="n"`, `post="dr"`): the model built with its defaults is pre-norm, one residual add per
block, and the feed-forward writer keeps the plain 0.02 init."""

import torch
from torch import nn


class Process(nn.Module):
    def __init__(self, steps, width):
        super().__init__()
        self.steps = steps
        self.norm = nn.LayerNorm(width) if "n" in steps else None
        self.drop = nn.Dropout(0.1)

    def forward(self, x, prev=None):
        for step in self.steps:
            if step == "n":
                x = self.norm(x)
            elif step == "d":
                x = self.drop(x)
            elif step == "r":
                x = x + prev
        return x


class Block(nn.Module):
    def __init__(self, width, pre, post):
        super().__init__()
        self.before, self.after = Process(pre, width), Process(post, width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.after(self.down(torch.relu(self.up(self.before(x)))), x)


class Net(nn.Module):
    def __init__(self, width=128, n_layer=8, pre="n", post="dr"):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, pre, post) for _ in range(n_layer)])
        for block in self.blocks:
            nn.init.normal_(block.up.weight, std=0.02)
            nn.init.normal_(block.down.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
