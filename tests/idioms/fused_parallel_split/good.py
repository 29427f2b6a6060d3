"""A parallel block: one fused projection is split into attention and MLP inputs; both writers
get the GPT-2 depth factor (two adds per block)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class GatedUnit(nn.Module):
    def forward(self, x):
        x, gate = x.chunk(2, dim=-1)
        return F.silu(gate) * x


class ParallelBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.sizes = (dim, dim, dim, 2 * hidden)
        self.fused = nn.Linear(dim, sum(self.sizes), bias=False)
        self.attn_out = nn.Linear(dim, dim, bias=False)
        self.mlp_out = nn.Sequential(GatedUnit(), nn.Linear(hidden, dim, bias=False))

    def forward(self, x):
        q, k, v, h = self.fused(self.norm(x)).split(self.sizes, dim=-1)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.attn_out(attn) + self.mlp_out(h)


class Model(nn.Module):
    def __init__(self, vocab=1000, dim=512, depth=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([ParallelBlock(dim, 4 * dim) for _ in range(depth)])
        self.apply(self._init)
        for block in self.blocks:
            nn.init.normal_(block.attn_out.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.mlp_out[1].weight, std=0.02 / math.sqrt(2 * depth))

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
