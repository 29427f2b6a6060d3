"""A pre-norm block whose norm is a module of its own: it normalises its input and scales
the result per channel by a sigmoid of a small low-rank layer read from the normalised
value. Its output is still the normalised input (only gated, by at most one), so the block
is pre-norm; the output projections are the writers, and nothing scales them for depth."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SquashGatedNorm(nn.Module):
    def __init__(self, width, rank=16):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.squeeze = nn.Linear(width, rank, bias=False)
        self.expand = nn.Linear(rank, width, bias=False)

    def forward(self, x):
        normed = self.norm(x)
        return normed * torch.sigmoid(self.expand(F.silu(self.squeeze(normed))))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn_norm = SquashGatedNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)  # expect: INI001
        self.mlp_norm = SquashGatedNorm(width)
        self.up = nn.Linear(width, 4 * width, bias=False)
        self.down = nn.Linear(4 * width, width, bias=False)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down(F.gelu(self.up(self.mlp_norm(x))))


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
