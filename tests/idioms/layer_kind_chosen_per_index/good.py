"""Every fourth layer is an attention block, the others a convolutional mixer block: one
list built by appending either class per index. Both writers get the
GPT-2 depth factor."""

import math

import torch.nn as nn
import torch.nn.functional as F


class AttentionLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width, bias=False)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class ConvLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.expand = nn.Linear(width, 2 * width)
        self.shrink = nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.shrink(F.gelu(self.expand(self.norm(x))))


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=12, attn_period=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layers = []
        for index in range(n_layers):
            if index % attn_period == 0:
                layers.append(AttentionLayer(width))
            else:
                layers.append(ConvLayer(width))
        self.layers = nn.ModuleList(layers)
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith(("proj.weight", "shrink.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layers))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return x
