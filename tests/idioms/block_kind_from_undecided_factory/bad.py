"""A factory picks each layer's class by whether its index is in a list the config holds; the
config is not in the file, so which class each layer gets is undecided: every layer is one of
the two. Nothing initialises the writers of either: PyTorch's default init."""

import torch
from torch import nn
from torch.nn import functional as F


class MixerLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class GatedLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(width, width)  # expect: INI001

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

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
