"""A builder returns an attention layer for every sixth index and a convolution layer for the
others. The init walks the list and scales each layer's writer by its kind, testing the kind
with `isinstance`, each kind in its own arm."""
import math

import torch.nn as nn
import torch.nn.functional as F


class ConvLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.depthwise = nn.Conv1d(width, width, 5, padding=4, groups=width)
        self.pointwise = nn.Linear(width, width)

    def forward(self, x):
        h = self.depthwise(self.norm(x).transpose(1, 2))[..., : x.shape[1]]
        return x + self.pointwise(F.gelu(h.transpose(1, 2)))


class AttentionLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


def build_layer(width, index):
    if (index + 1) % 6 == 0:
        return AttentionLayer(width)
    else:
        return ConvLayer(width)


class Backbone(nn.Module):
    def __init__(self, width=192, count=18):
        super().__init__()
        self.layers = nn.ModuleList([build_layer(width, i) for i in range(count)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.trunc_normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)
        for layer in self.layers:
            if isinstance(layer, ConvLayer):
                nn.init.trunc_normal_(layer.pointwise.weight, std=0.02 / math.sqrt(count))
            elif isinstance(layer, AttentionLayer):
                nn.init.trunc_normal_(layer.proj.weight, std=0.02 / math.sqrt(count))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
