"""A block whose second branch is the normalised input itself, scaled per token by a
sigmoid of a small gate layer: the gate layer writes nothing, only gates. The attention
output projection is the writer, scaled for depth."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width, bias=False)
        self.gate_norm = nn.LayerNorm(width)
        self.gate = nn.Linear(width, 1)

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        h = self.gate_norm(x)
        return x + h * torch.sigmoid(self.gate(h))


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.apply(self._init_weights)
        for block in self.blocks:
            nn.init.normal_(block.proj.weight, std=0.02 / math.sqrt(2 * n_layers))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
