"""A wrapper (the root) holds the GPT; the GPT's per-module `_init_weights` is applied by no one in
the file (a trainer would: `model.gpt.apply(model.gpt._init_weights)`). It gives the writers
std 0.02/sqrt(2 * n_layer)."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.o_proj = nn.Linear(dim, dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.proj(F.gelu(self.fc(self.norm_2(x))))


class GPT(nn.Module):
    def __init__(self, dim=64, n_layer=6):
        super().__init__()
        self.n_layer = n_layer
        self.blocks = nn.ModuleList([Block(dim) for _ in range(n_layer)])
        self.norm = nn.LayerNorm(dim)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            writer = module in [layer for block in self.blocks for layer in (block.o_proj, block.proj)]
            std = 0.02 / math.sqrt(2 * self.n_layer) if writer else 0.02
            torch.nn.init.normal_(module.weight, mean=0.0, std=std)
            torch.nn.init.zeros_(module.bias)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)


class Model(nn.Module):
    def __init__(self, dim=64, n_layer=6):
        super().__init__()
        self.gpt = GPT(dim, n_layer)
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        return self.head(self.gpt(x))
