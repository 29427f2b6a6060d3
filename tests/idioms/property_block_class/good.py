"""Blocks built from a class a property returns (`self.block_class(...)`), so that subclasses
can swap the block; writers flagged in the layers, divided by sqrt(2 * n_layers) at init."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.proj.scaled_residual = True

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.expand = nn.Linear(width, 4 * width)
        self.contract = nn.Linear(4 * width, width)
        self.contract.scaled_residual = True

    def forward(self, x):
        return self.contract(F.gelu(self.expand(x)))


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_attn = nn.LayerNorm(width)
        self.attn = SelfAttention(width)
        self.pre_ff = nn.LayerNorm(width)
        self.ff = FeedForward(width)

    def forward(self, x):
        x = x + self.attn(self.pre_attn(x))
        return x + self.ff(self.pre_ff(x))


class Decoder(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=8):
        super().__init__()
        self.n_layers = n_layers
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([self.block_class(width) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(width)
        self.apply(self.init_module)

    @property
    def block_class(self):
        return Layer

    def init_module(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if getattr(module, "scaled_residual", False):
            with torch.no_grad():
                module.weight.div_(math.sqrt(2 * self.n_layers))

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.final_norm(x)
