"""bad.py with the output layer drawn at 0.02 / sqrt(depth); and a layer whose second write
is under the same mask, not its complement, leaves the other tokens unnormalised: that stack
is not pre-norm, whatever its init."""

import math

import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.text_norm = nn.LayerNorm(width)
        self.image_norm = nn.LayerNorm(width)
        self.attend = nn.Linear(width, width)
        self.out = nn.Linear(width, width)
        nn.init.normal_(self.out.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x, image_mask=None):
        residual = x
        if image_mask is None:
            x = self.text_norm(x)
        else:
            x = x.masked_scatter(image_mask.unsqueeze(-1), self.image_norm(x[image_mask]))
            x = x.masked_scatter(~image_mask.unsqueeze(-1), self.text_norm(x[~image_mask]))
        x = self.out(torch.tanh(self.attend(x)))
        return residual + x


class Model(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, depth) for _ in range(depth)])

    def forward(self, x, image_mask=None):
        for layer in self.layers:
            x = layer(x, image_mask)
        return x


class HalfNormed(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.image_norm = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)

    def forward(self, x, image_mask):
        x = x.masked_scatter(image_mask.unsqueeze(-1), self.image_norm(x[image_mask]))
        x = x.masked_scatter(image_mask.unsqueeze(-1), self.image_norm(x[image_mask]))
        return x + self.mix(x)


class HalfNormedModel(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList([HalfNormed(width) for _ in range(depth)])

    def forward(self, x, image_mask):
        for layer in self.layers:
            x = layer(x, image_mask)
        return x
