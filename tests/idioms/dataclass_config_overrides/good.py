"""A dataclass config built with keyword overrides (`LayerChoice(mixer="gated")`): the generated
`__init__` stores them, so the model builds the gated mixer, whose writer starts at zero, not
the default MLP one."""

from dataclasses import dataclass

import torch.nn as nn


@dataclass
class LayerChoice:
    mixer: str = "mlp"
    expansion: int = 2


class GatedMixer(nn.Module):
    def __init__(self, dim, expansion):
        super().__init__()
        self.gate = nn.Linear(dim, expansion * dim)
        self.value = nn.Linear(dim, expansion * dim)
        self.out = nn.Linear(expansion * dim, dim)
        nn.init.zeros_(self.out.weight)

    def forward(self, x):
        return self.out(self.gate(x).sigmoid() * self.value(x))


class MlpMixer(nn.Module):
    def __init__(self, dim, expansion):
        super().__init__()
        self.up = nn.Linear(dim, expansion * dim)
        self.down = nn.Linear(expansion * dim, dim)

    def forward(self, x):
        return self.down(self.up(x).relu())


class Layer(nn.Module):
    def __init__(self, dim, choice):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        kind = GatedMixer if choice.mixer == "gated" else MlpMixer
        self.mixer = kind(dim, choice.expansion)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class Net(nn.Module):
    def __init__(self, dim=96, depth=8):
        super().__init__()
        choice = LayerChoice(mixer="gated", expansion=4)
        self.layers = nn.ModuleList([Layer(dim, choice) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
