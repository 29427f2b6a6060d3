"""Each branch normalises its input and adds it back itself (`return out + residual`); the block
calls the branches' `forward` explicitly, one after the other. The writers get std
0.02/sqrt(2 * num_layers): two adds per block."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)

    def forward(self, x, mask=None):
        residual = x
        x = self.norm.forward(x)
        q, k, v = self.qkv.forward(x).chunk(3, dim=-1)
        x = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None)
        x = self.o_proj.forward(x)
        return x + residual


class Mlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim, bias=False)
        self.fc2 = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        residual = x
        x = self.fc2.forward(F.gelu(self.fc1.forward(self.norm.forward(x))))
        return x + residual


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = Attention(dim)
        self.mlp = Mlp(dim)

    def forward(self, x, mask=None):
        x = self.attn.forward(x, mask)
        return self.mlp.forward(x)


class Model(nn.Module):
    def __init__(self, vocab=1000, dim=64, num_layers=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(num_layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.apply(self._init_weights)
        for block in self.blocks:
            for writer in (block.attn.o_proj, block.mlp.fc2):
                torch.nn.init.normal_(writer.weight, mean=0.0, std=0.02 / math.sqrt(2 * num_layers))

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, tokens):
        x = self.embed.forward(tokens)
        for block in self.blocks:
            x = block.forward(x)
        return self.head.forward(self.norm.forward(x))
