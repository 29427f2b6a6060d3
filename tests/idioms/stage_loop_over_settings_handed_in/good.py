"""bad.py's stage loops over the settings handed in, each writer given 0.02/sqrt(sum(depths)):
one add per block, sum(depths) blocks."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inp = nn.Linear(width, 2 * width)
        self.outp = nn.Linear(width, width)

    def forward(self, x):
        a, b = self.inp(self.norm(x)).chunk(2, dim=-1)
        return x + self.outp(a * F.silu(b))


class Hierarchy(nn.Module):
    def __init__(self, widths, depths):
        super().__init__()
        self.stages = nn.ModuleList([])
        for width, n in zip(widths, depths):
            for _ in range(n):
                self.stages.append(Mixer(width))
        for mixer in self.stages:
            nn.init.normal_(mixer.outp.weight, std=0.02 / math.sqrt(sum(depths)))

    def forward(self, x):
        for mixer in self.stages:
            x = mixer(x)
        return x


class Refiner(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class RefinerStack(nn.Module):
    def __init__(self, width, depths=(2, 2, 6)):
        super().__init__()
        self.blocks = nn.ModuleList([])
        for n in depths:
            for _ in range(n):
                self.blocks.append(Refiner(width))
        for block in self.blocks:
            nn.init.normal_(block.down.weight, std=0.02 / math.sqrt(sum(depths)))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
