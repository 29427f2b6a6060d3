"""bad.py with the experts' down projections drawn at 0.02 / sqrt(2 * n_layers), as GPT-2
does (the expert count still chosen per layer)."""

import math
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Settings:
    width: int = 256
    n_layers: int = 8
    n_experts: int = 4
    sparse_every: int = 2


class Expert(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width, bias=False)
        self.down = nn.Linear(4 * width, width, bias=False)

    def forward(self, x):
        return self.down(self.up(x).relu())


class Experts(nn.Module):
    def __init__(self, width, count):
        super().__init__()
        self.count = count
        self.router = nn.Linear(width, count, bias=False) if count > 1 else None
        self.experts = nn.ModuleList([Expert(width) for _ in range(self.count)])

    def forward(self, x):
        if self.count == 1:
            return self.experts[0](x)
        weights = self.router(x).softmax(dim=-1)
        mixed = torch.zeros_like(x)
        for index in range(self.count):
            mixed = mixed + weights[..., index : index + 1] * self.experts[index](x)
        return mixed


class Layer(nn.Module):
    def __init__(self, settings, count):
        super().__init__()
        self.norm = nn.LayerNorm(settings.width)
        self.experts = Experts(settings.width, count)

    def forward(self, x):
        return x + self.experts(self.norm(x))


class Model(nn.Module):
    def __init__(self, settings: Settings):
        super().__init__()
        layers = []
        for index in range(settings.n_layers):
            sparse = index % settings.sparse_every == 1
            count = settings.n_experts if sparse else 1
            layers.append(Layer(settings, count))
        self.layers = nn.ModuleList(layers)
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith("down.weight"):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * settings.n_layers))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
