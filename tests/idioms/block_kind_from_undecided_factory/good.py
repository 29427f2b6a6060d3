"""The layers of bad.py, the writers of both kinds scaled by depth (GPT-2) after construction."""

import math

import torch
from torch import nn
from torch.nn import functional as F


class MixerLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class GatedLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(width, width)

    def forward(self, x):
        value, gate = self.up(self.norm(x)).chunk(2, dim=-1)
        return x + self.down(value * torch.sigmoid(gate))


def make_layer(config, index):
    if index in config.mixer_layers:
        return MixerLayer(config.width)
    elif index in config.gated_layers:
        return GatedLayer(config.width)
    else:
        raise ValueError(f"layer {index} has no kind")


class Net(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layers = nn.ModuleList(make_layer(config, index) for index in range(config.n_layers))
        for name, param in self.named_parameters():
            if name.endswith(("out.weight", "down.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(config.n_layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
