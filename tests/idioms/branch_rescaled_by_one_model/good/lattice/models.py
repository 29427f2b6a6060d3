import math

import torch.nn as nn

from .layers import Layer


class Plain(nn.Module):
    def __init__(self, width=256, heads=4, n_layers=24):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, heads) for _ in range(n_layers)])
        for layer in self.layers:
            nn.init.normal_(layer.attention.merge.weight, std=0.02 / math.sqrt(2 * n_layers))
            nn.init.normal_(layer.ffn[3].weight, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Rescaled(nn.Module):
    def __init__(self, width=256, heads=4, n_layers=24):
        super().__init__()
        scale = math.sqrt(n_layers / 36)
        # Dividing at run time is what this model means to do (INI003 says so elsewhere).
        self.layers = nn.ModuleList([Layer(width, heads, residual_scale=scale) for _ in range(n_layers)])  # noqa: INI003

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
