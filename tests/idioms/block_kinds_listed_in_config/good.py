"""The model's layers are listed by kind in its config and built by a comprehension over that
list through a factory; the writers get 0.02/sqrt(N), N the length of the list (one residual
add per layer)."""

import math

import torch
from torch import nn


class AttnBlock(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)

    def forward(self, x):
        h = self.norm(x)
        a, _ = self.attn(h, h, h, need_weights=False)
        return x + a


class MlpBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(self.norm(x))))


def make_block(kind, width, heads):
    if kind == "attn":
        return AttnBlock(width, heads)
    elif kind == "mlp":
        return MlpBlock(width)
    raise ValueError(f"unknown block kind {kind!r}")


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        width = config["width"]
        self.layers = nn.ModuleList([make_block(kind, width, config["heads"]) for kind in config["blocks"]])
        depth = len(config["blocks"])
        for name, p in self.named_parameters():
            if name.endswith(("out_proj.weight", "down.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(depth))
            elif p.dim() > 1:
                nn.init.normal_(p, std=0.02)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
