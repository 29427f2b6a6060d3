"""Which layers get a mixture of experts instead of the MLP is a tuple of layer numbers that is
empty by default (`moe_layers=()`, read through a `cast_tuple` helper): the model built with its
defaults has an MLP in every layer, and nothing scales the writers."""

import torch.nn as nn
import torch.nn.functional as F


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


class Experts(nn.Module):
    def __init__(self, width, count=4):
        super().__init__()
        self.gate = nn.Linear(width, count)
        self.experts = nn.ModuleList([nn.Linear(width, width) for _ in range(count)])

    def forward(self, x):
        weights = self.gate(x).softmax(-1)
        return sum(weights[..., i : i + 1] * expert(x) for i, expert in enumerate(self.experts))


def make_mlp(width):
    return nn.Sequential(
        nn.Linear(width, 4 * width),
        nn.GELU(),
        nn.Linear(4 * width, width),  # expect: INI001
    )


class Block(nn.Module):
    def __init__(self, width, mlp):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.mlp = mlp

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.mlp(self.norm2(x))


class Model(nn.Module):
    def __init__(self, width=128, depth=6, moe_layers=tuple()):
        super().__init__()
        blocks = []
        for index in range(depth):
            use_moe = index + 1 in as_tuple(moe_layers)
            blocks.append(Block(width, Experts(width) if use_moe else make_mlp(width)))
        self.blocks = nn.ModuleList(blocks)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
