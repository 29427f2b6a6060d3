"""The name test scales both writers, the MLP's by its place in the nn.Sequential (`mlp.2.weight`);
a function named like an init (`gaussian_init`) only makes and returns a new tensor."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def gaussian_init(*shape):
    table = torch.empty(shape)
    nn.init.normal_(table, std=0.02)
    return table


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.in_proj = nn.Linear(width, 3 * width)
        self.out_proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.in_proj(x).chunk(3, dim=-1)
        return self.out_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width),
            nn.GELU(),
            nn.Linear(4 * width, width),
            nn.Dropout(0.1),
        )

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Decoder(nn.Module):
    def __init__(self, width=256, n_layers=8):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layers)])
        self.apply(self._init_module)
        for name, p in self.named_parameters():
            if name.endswith(("out_proj.weight", "mlp.2.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layers))

    def _init_module(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
