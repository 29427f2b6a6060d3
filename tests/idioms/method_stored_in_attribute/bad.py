"""The block keeps its two branches as methods bound to attributes in `__init__` (so that an option
can swap in a compiled version); `forward` calls them through the attributes. The second one
makes its residual add itself. Nothing initialises the writers: PyTorch's default init."""

import torch
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, width, options):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001
        self.mix_fn = self.mix_normed
        self.ff_fn = self.ff_residual
        if options.get("compile", False):
            self.mix_fn = torch.compile(self.mix_normed)
            self.ff_fn = torch.compile(self.ff_residual)

    def mix_normed(self, x):
        return self.mix(self.norm1(x))

    def ff_residual(self, x):
        return self.down(F.gelu(self.up(self.norm2(x)))) + x

    def forward(self, x):
        x = self.mix_fn(x) + x
        return self.ff_fn(x)


class Net(nn.Module):
    def __init__(self, options, width=64, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width, options) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
