"""A dataclass config built with keyword overrides (`LayerChoice(mixer="mlp")`): the generated
`__init__` stores them, so the model builds the MLP mixer, not the default one. PyTorch's default
init on the writers, no depth factor."""

from dataclasses import dataclass

import torch.nn as nn


@dataclass
class LayerChoice:
    mixer: str = "gated"
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
        self.down = nn.Linear(expansion * dim, dim)  # expect: INI001

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
        choice = LayerChoice(mixer="mlp", expansion=4)
        self.layers = nn.ModuleList([Layer(dim, choice) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
