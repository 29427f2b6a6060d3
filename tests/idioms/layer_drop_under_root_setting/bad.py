"""The root hands its layer-drop rate down to the stack, whose `forward` rebinds its list of
(block, arguments) pairs to a random subset of them when the rate is positive while training.
Whichever way that test goes, the loop walks the same blocks: `depth` pre-norm blocks whose
writers keep PyTorch's default init."""

import torch
from torch import nn


def thin_out(entries, rate):
    keep = torch.rand(len(entries)) >= rate
    survivors = [entry for entry, kept in zip(entries, keep) if kept]
    survivors = entries[:1] if not survivors else survivors
    return survivors


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.widen = nn.Linear(width, 3 * width)
        self.narrow = nn.Linear(3 * width, width)  # expect: INI001

    def forward(self, x, **extra):
        return self.narrow(self.widen(self.norm(x)).relu())


class Stack(nn.Module):
    def __init__(self, blocks, rate):
        super().__init__()
        self.blocks = blocks
        self.rate = rate

    def forward(self, x, **extra):
        entries = list(zip(self.blocks, [extra for _ in self.blocks]))
        if self.training and self.rate > 0:
            entries = thin_out(entries, self.rate)
        for block, arguments in entries:
            x = x + block(x, **arguments)
        return x


class Model(nn.Module):
    def __init__(self, width, depth, layer_drop=0.0):
        super().__init__()
        self.stack = Stack(nn.ModuleList([Block(width) for _ in range(depth)]), layer_drop)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(self.stack(x))
