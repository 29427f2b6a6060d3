"""Layers built with `skip_init` (uninitialised) in a pre-norm decoder whose only init is a loop
over every parameter in the project's model builder (`builder.py`): uniform(-param_init,
param_init), no depth factor for the writers."""

import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import skip_init


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.w_1 = skip_init(nn.Linear, width, 4 * width)
        self.w_2 = skip_init(nn.Linear, 4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.w_2(F.relu(self.w_1(self.norm(x))))


class Decoder(nn.Module):
    def __init__(self, width, layers):
        super().__init__()
        self.layers = nn.ModuleList([FeedForward(width) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layers:
            x = x + layer(x)
        return x
