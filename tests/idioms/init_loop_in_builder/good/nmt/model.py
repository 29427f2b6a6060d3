"""The model of bad/ whose builder draws the writers with 0.02/sqrt(layers), the rest uniform."""

import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import skip_init


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.w_1 = skip_init(nn.Linear, width, 4 * width)
        self.w_2 = skip_init(nn.Linear, 4 * width, width)

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
