"""Each layer's class is looked up in a module-level table of layer classes by a kind the file
cannot see: whichever class a layer is, its writer is zero-initialised (a deliberate scheme)."""

import torch
from torch import nn


class ConvMixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mix = nn.Conv1d(width, width, 3, padding=1, groups=width)
        self.proj = nn.Linear(width, width)
        nn.init.zeros_(self.proj.weight)

    def forward(self, x):
        h = self.mix(self.norm(x).transpose(1, 2)).transpose(1, 2)
        return x + self.proj(torch.nn.functional.gelu(h))


class GatedMlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(width, width)
        nn.init.zeros_(self.down.weight)

    def forward(self, x):
        value, gate = self.up(self.norm(x)).chunk(2, dim=-1)
        return x + self.down(value * torch.sigmoid(gate))


LAYER_KINDS = {"conv": ConvMixer, "mlp": GatedMlp}


class Net(nn.Module):
    def __init__(self, width, kinds):
        super().__init__()
        self.layers = nn.ModuleList()
        for kind in kinds:
            self.layers.append(LAYER_KINDS[kind](width))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
