"""Blocks appended by a loop as (name, block) pairs to a list, which becomes the children of
`nn.Sequential(OrderedDict(pairs))`; both writers are drawn with std / sqrt(2 * n_layers)."""
import math
from collections import OrderedDict

import torch.nn as nn


class Feedforward(nn.Sequential):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.act = nn.GELU()
        self.down = nn.Linear(hidden, width)
        self.drop = nn.Dropout(0.1)


class Layer(nn.Module):
    def __init__(self, width, heads, hidden):
        super().__init__()
        self.pre_mix = nn.LayerNorm(width)
        self.mix = nn.MultiheadAttention(width, heads)
        self.pre_ff = nn.LayerNorm(width)
        self.ff = Feedforward(width, hidden)

    def forward(self, tokens):
        h = self.pre_mix(tokens)
        h, _ = self.mix(h, h, h, need_weights=False)
        h = h + tokens
        return h + self.ff(self.pre_ff(h))


class Trunk(nn.Module):
    def __init__(self, width, heads, hidden, n_layers):
        super().__init__()
        pairs = []
        for i in range(n_layers):
            pairs.append((f"layer{i}", Layer(width, heads, hidden)))
        self.layers = nn.Sequential(OrderedDict(pairs))
        self.out_norm = nn.LayerNorm(width)
        writer_std = 0.02 / math.sqrt(2 * n_layers)
        for layer in self.layers:
            nn.init.normal_(layer.mix.out_proj.weight, std=writer_std)
            nn.init.normal_(layer.ff.down.weight, std=writer_std)

    def forward(self, x):
        return self.out_norm(self.layers(x))
