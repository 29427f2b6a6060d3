"""The feed-forward class is picked by an `if`/`else` statement on a config string and built
afterwards from the name; whichever is built, its output layer is drawn with the depth factor
1/sqrt(n_layer) (one add per block)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class GeluMLP(nn.Module):
    def __init__(self, width, n_layer):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(n_layer))

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class GatedMLP(nn.Module):
    def __init__(self, width, n_layer):
        super().__init__()
        self.gate = nn.Linear(width, 4 * width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(n_layer))

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, width, n_layer, mlp_kind):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        if mlp_kind == "gelu":
            mlp_class = GeluMLP
        else:
            mlp_class = GatedMLP
        self.mlp = mlp_class(width, n_layer)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.blocks = nn.ModuleList(
            [Block(config.width, config.n_layer, config.mlp_kind) for _ in range(config.n_layer)]
        )

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
