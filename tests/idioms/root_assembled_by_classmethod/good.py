"""The model of bad.py with both writers drawn with std 0.02/sqrt(2 * n_layers).

A model whose `__init__` is handed its parts: a class-method factory (`LM.from_config`) builds
the layer list and passes it to the constructor, each layer built by a factory of its own. The
layers are pre-norm; the attention draws its output projection with 1/sqrt(dim) and the MLP
keeps PyTorch's default init, neither scaled for depth."""

from dataclasses import dataclass

import math

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    dim: int = 512
    n_layers: int = 12
    vocab: int = 32000


class Attention(nn.Module):
    def __init__(self, dim, n_layers):
        super().__init__()
        self.dim, self.n_layers = dim, n_layers
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.normal_(self.qkv.weight, std=self.dim**-0.5)
        nn.init.normal_(self.out.weight, std=0.02 / math.sqrt(2 * self.n_layers))

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Layer(nn.Module):
    def __init__(self, attn: Attention, norm_1: nn.LayerNorm, mlp: nn.Sequential, norm_2: nn.LayerNorm):
        super().__init__()
        self.attn, self.norm_1, self.mlp, self.norm_2 = attn, norm_1, mlp, norm_2

    @classmethod
    def from_config(cls, config: Config):
        up, down = nn.Linear(config.dim, 4 * config.dim), nn.Linear(4 * config.dim, config.dim)
        nn.init.normal_(down.weight, std=0.02 / math.sqrt(2 * config.n_layers))
        mlp = nn.Sequential(up, nn.GELU(), down)
        return cls(Attention(config.dim, config.n_layers), nn.LayerNorm(config.dim), mlp, nn.LayerNorm(config.dim))

    def forward(self, x):
        h = x + self.attn(self.norm_1(x))
        return h + self.mlp(self.norm_2(h))


class LM(nn.Module):
    def __init__(self, embed: nn.Embedding, layers: nn.ModuleList):
        super().__init__()
        self.embed = embed
        self.layers = layers

    @classmethod
    def from_config(cls, config: Config):
        layers = nn.ModuleList([Layer.from_config(config) for _ in range(config.n_layers)])
        return cls(nn.Embedding(config.vocab, config.dim), layers)

    def forward(self, idx):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x)
        return x
