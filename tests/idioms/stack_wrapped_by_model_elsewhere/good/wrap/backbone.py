"""A complete stack of pre-norm blocks, left at PyTorch's default init: the language model
next door builds it and gives its residual writers the depth factor."""

import torch.nn as nn
import torch.nn.functional as F


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.in_proj = nn.Linear(width, 2 * width, bias=False)
        self.out_proj = nn.Linear(width, width, bias=False)

    def forward(self, x):
        content, gate = self.in_proj(x).chunk(2, dim=-1)
        return self.out_proj(content * F.silu(gate))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mixer = Mixer(width)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class Backbone(nn.Module):
    def __init__(self, width, n_layers):
        super().__init__()
        self.layers = nn.ModuleList([Block(width) for _ in range(n_layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
