"""A ViT whose norm class is given by its name in `torch.nn` (`norm="LayerNorm"`, looked up
with `getattr(nn, norm)`), with optional LayerScale that the default `layer_scale=None` leaves
out (`... if layer_scale else nn.Identity()`). Every linear is drawn at 0.02: the writers have no
depth factor."""

from functools import partial

import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self, width, value):
        super().__init__()
        self.gain = nn.Parameter(value * torch.ones(width))

    def forward(self, x):
        return x * self.gain


class SelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v)


class Layer(nn.Module):
    def __init__(self, width, heads, norm_class, layer_scale=None):
        super().__init__()
        self.norm1 = norm_class(width)
        self.attn = SelfAttention(width, heads)
        self.scale1 = Scale(width, layer_scale) if layer_scale else nn.Identity()
        self.norm2 = norm_class(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001
        self.scale2 = Scale(width, layer_scale) if layer_scale else nn.Identity()

    def forward(self, x):
        x = x + self.scale1(self.attn(self.norm1(x)))
        return x + self.scale2(self.down(self.up(self.norm2(x)).relu()))


class Encoder(nn.Module):
    def __init__(self, width=256, depth=12, heads=8, norm="LayerNorm", layer_scale=None):
        super().__init__()
        if isinstance(norm, str):
            norm = partial(getattr(nn, norm), eps=1e-5)
        self.layers = nn.ModuleList([Layer(width, heads, norm, layer_scale) for _ in range(depth)])
        self.final_norm = norm(width)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.trunc_normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.final_norm(x)
