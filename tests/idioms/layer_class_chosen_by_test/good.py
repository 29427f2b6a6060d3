"""The MLP class is picked by a constructor flag the model is given (`GatedMlp if gated else
PlainMlp`) and built afterwards from the name: whichever is built, its down projection is
then scaled by 1/sqrt(n_layers), one add per layer."""
import math

import torch.nn as nn
import torch.nn.functional as F


class PlainMlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 4 * dim)
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class GatedMlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 8 * dim)
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        a, b = self.fc(x).chunk(2, dim=-1)
        return self.proj(F.silu(a) * b)


class Layer(nn.Module):
    def __init__(self, dim, gated):
        super().__init__()
        mlp_class = GatedMlp if gated else PlainMlp
        self.norm = nn.LayerNorm(dim)
        self.mlp = mlp_class(dim)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Model(nn.Module):
    def __init__(self, dim, n_layers, gated):
        super().__init__()
        self.layers = nn.Sequential(*[Layer(dim, gated) for _ in range(n_layers)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)
        for name, param in self.named_parameters():
            if name.endswith("mlp.proj.weight"):
                nn.init.normal_(param, std=0.02 / math.sqrt(n_layers))

    def forward(self, x):
        return self.layers(x)
