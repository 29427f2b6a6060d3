"""Methods written on the line of their `def`: the MLP's writer gets the GPT-2 depth factor."""
import math

import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(width, 4 * width),
            nn.GELU(),
            nn.Linear(4 * width, width),
            nn.Dropout(0.1),
        )

    def forward(self, x): return self.net(x)


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = MLP(width)

    def forward(self, x): return x + self.mlp(self.norm(x))


class Net(nn.Module):
    def __init__(self, width=256, n_layers=6):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layers)])
        self.apply(self._init)
        for layer in self.layers: nn.init.normal_(layer.mlp.net[2].weight, std=0.02 / math.sqrt(2 * n_layers))

    def _init(self, module):
        if isinstance(module, nn.Linear): nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for layer in self.layers: x = layer(x)
        return x
