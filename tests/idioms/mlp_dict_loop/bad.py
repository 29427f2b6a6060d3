"""A block whose MLP is a ModuleDict run as a loop over `self.mlp.values()`; its output layer is not scaled."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.ModuleDict(
            {"fc": nn.Linear(dim, 4 * dim), "act": nn.GELU(), "out": nn.Linear(4 * dim, dim)}  # expect: INI001
        )

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        h = self.norm2(x)
        for layer in self.mlp.values():
            h = layer(h)
        return x + h


class Model(nn.Module):
    def __init__(self, vocab_size=50304, dim=768, n_layer=12):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(n_layer)])
        self.norm = nn.LayerNorm(dim)
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("attn.proj.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
