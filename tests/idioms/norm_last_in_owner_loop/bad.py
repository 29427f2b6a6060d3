"""Blocks without a `forward` of their own: the owner's loop adds each block's attention and MLP
into the stream, their inputs normalised, and the norm comes once, after the loop. Pre-norm:
2 * n_layer adds pile up, and the output projections at 0.02 have no depth factor."""

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.mlp = FeedForward(width)


class Encoder(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layer)])
        self.final_norm = nn.LayerNorm(width)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)

    def forward(self, x):
        for layer in self.layers:
            x = x + layer.attn(layer.norm(x))
            x = x + layer.mlp(layer.norm(x))
        return self.final_norm(x)
