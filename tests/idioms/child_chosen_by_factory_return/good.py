"""The fixed version of bad.py: whichever feed-forward the factory returns, its writer is drawn
with a depth factor (GPT-2's 0.02/sqrt(N))."""

import math

import torch.nn as nn
import torch.nn.functional as F


class PlainMLP(nn.Module):
    def __init__(self, width, hidden, depth):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class GatedMLP(nn.Module):
    def __init__(self, width, hidden, depth):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.gate = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


def make_mlp(width, hidden, depth, kind="plain"):
    if kind == "glu":
        return GatedMLP(width, hidden, depth)
    return PlainMLP(width, hidden, depth)


class Layer(nn.Module):
    def __init__(self, width, depth, kind):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = make_mlp(width, 4 * width, depth, kind)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Decoder(nn.Module):
    def __init__(self, width=128, depth=10, kind="plain"):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, depth, kind) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
