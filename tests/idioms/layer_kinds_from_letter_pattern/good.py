"""Layer kinds spelled as a pattern of letters, repeated once per block, outputs scaled by depth.

`('s', 'm') * depth` lays out 2 * depth pre-norm branches; each output projection starts at
0.02/sqrt(2 * depth), the GPT-2 factor for that many residual adds.
"""
import math

import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        nn.init.normal_(self.out.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x, context=None):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Mlp(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class CrossAttention(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.q = nn.Linear(width, width)
        self.kv = nn.Linear(width, 2 * width)
        self.out = nn.Linear(width, width)
        nn.init.normal_(self.out.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x, context=None):
        k, v = self.kv(context).chunk(2, dim=-1)
        return self.out(F.scaled_dot_product_attention(self.q(x), k, v))


class Stack(nn.Module):
    def __init__(self, width=256, depth=12, with_context=False):
        super().__init__()
        if with_context:
            pattern = ("s", "x", "m")
        else:
            pattern = ("s", "m")
        self.kinds = pattern * depth
        self.norms = nn.ModuleList([])
        self.layers = nn.ModuleList([])
        for kind in self.kinds:
            if kind == "s":
                layer = SelfAttention(width, depth)
            elif kind == "x":
                layer = CrossAttention(width, depth)
            elif kind == "m":
                layer = Mlp(width, depth)
            self.norms.append(nn.LayerNorm(width))
            self.layers.append(layer)

    def forward(self, x, context=None):
        for kind, norm, layer in zip(self.kinds, self.norms, self.layers):
            if kind == "m":
                x = x + layer(norm(x))
            else:
                x = x + layer(norm(x), context=context)
        return x
