"""The block class and the norm factory are constructor arguments that default to None and are
filled in by `if x is None: x = ...`: the model is checked as that default path builds it. The
writers keep PyTorch's default init, no depth factor."""
from functools import partial

import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, width, norm):
        super().__init__()
        self.pre = norm(width)
        self.fc_in = nn.Linear(width, 2 * width)
        self.fc_out = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.fc_out(self.fc_in(self.pre(x)).tanh())


class Stack(nn.Module):
    def __init__(self, width, n_layers, layer_cls=None, norm=None):
        super().__init__()
        if layer_cls is None:
            layer_cls = Layer
        if norm is None:
            norm = partial(nn.LayerNorm, eps=1e-5)
        self.layers = nn.ModuleList([layer_cls(width, norm) for _ in range(n_layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
