"""A hierarchical model walks the per-stage settings it is handed (`for width, n in
zip(widths, depths)`, `for n in depths`) and builds `n` blocks per stage into one list. The
stream runs through sum(depths) blocks of each list; no init reaches the writers."""
import torch.nn as nn
import torch.nn.functional as F


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inp = nn.Linear(width, 2 * width)
        self.outp = nn.Linear(width, width)  # expect: INI001

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

    def forward(self, x):
        for mixer in self.stages:
            x = mixer(x)
        return x


class Refiner(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


class RefinerStack(nn.Module):
    def __init__(self, width, depths=(2, 2, 6)):
        super().__init__()
        self.blocks = nn.ModuleList([])
        for n in depths:
            for _ in range(n):
                self.blocks.append(Refiner(width))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
