"""Blocks appended by a loop as (name, block) pairs to a list, which becomes the children of
`nn.Sequential(OrderedDict(pairs))`. The MLP is itself an `nn.Sequential` subclass whose last
layer is followed by dropout. Neither writer gets a depth factor."""
from collections import OrderedDict

import torch.nn as nn


class Feedforward(nn.Sequential):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.act = nn.GELU()
        self.down = nn.Linear(hidden, width)  # expect: INI001
        self.drop = nn.Dropout(0.1)
        nn.init.xavier_uniform_(self.up.weight)
        nn.init.xavier_uniform_(self.down.weight)


class Layer(nn.Module):
    def __init__(self, width, heads, hidden):
        super().__init__()
        self.pre_mix = nn.LayerNorm(width)
        self.mix = nn.MultiheadAttention(width, heads)  # expect: INI001
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

    def forward(self, x):
        return self.out_norm(self.layers(x))
