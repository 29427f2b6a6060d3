"""Two kinds of token share the stream; each kind has its own input norm, applied to its
tokens only and written back with `masked_scatter`. The tokens of one kind and then of the
other are normalised (complementary masks): the attention reads a normalised input on every
path, and its output layer keeps PyTorch's default init."""

import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.text_norm = nn.LayerNorm(width)
        self.image_norm = nn.LayerNorm(width)
        self.attend = nn.Linear(width, width)
        self.out = nn.Linear(width, width)  # expect: INI001

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
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])

    def forward(self, x, image_mask=None):
        for layer in self.layers:
            x = layer(x, image_mask)
        return x
