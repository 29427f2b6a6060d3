"""Init functions prepared with `functools.partial(nn.init.normal_, std=...)` and applied later
to each weight; the writers get the one with the depth factor."""
import math
from functools import partial

import torch.nn as nn
import torch.nn.functional as F


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_attn = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attn_out = nn.Linear(width, width)
        self.pre_ff = nn.LayerNorm(width)
        self.expand = nn.Linear(width, 4 * width)
        self.contract = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.pre_attn(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.contract(F.gelu(self.expand(self.pre_ff(x))))


class Decoder(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(width)
        plain = partial(nn.init.normal_, mean=0.0, std=0.02)
        scaled = partial(nn.init.normal_, mean=0.0, std=0.02 / math.sqrt(2 * n_layers))
        plain(self.embed.weight)
        for layer in self.layers:
            plain(layer.qkv.weight)
            plain(layer.expand.weight)
            scaled(layer.attn_out.weight)
            scaled(layer.contract.weight)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.final_norm(x)
