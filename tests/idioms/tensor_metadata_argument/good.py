"""A block hands its attention a bias computed from the input's length (`x.shape[1]`): a size
read off the stream, not the stream's content, so the attention branch (which normalises its
input itself) stays pre-norm. The writers get std/sqrt(2 * depth)."""

import math

import torch
from torch import nn


class LengthBias(nn.Module):
    def __init__(self, heads, max_len=512):
        super().__init__()
        self.table = nn.Embedding(max_len, heads)

    def forward(self, length):
        return self.table(torch.arange(length)).transpose(0, 1)


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width)

    def forward(self, x, bias=None):
        b, t, c = x.shape
        x = self.norm(x)
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).unbind(2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k)
        if bias is not None:
            scores = scores + bias[:, :t, None]
        mixed = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), v).reshape(b, t, c)
        return self.proj(mixed)


class Layer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.position = LengthBias(heads)
        self.attention = Attention(width, heads)
        self.mlp = nn.Sequential(
            nn.LayerNorm(width),
            nn.Linear(width, 4 * width),
            nn.ReLU(),
            nn.Linear(4 * width, width),
        )

    def forward(self, x):
        bias = self.position(x.size(1))
        x = self.attention(x, bias=bias) + x
        x = self.mlp(x) + x
        return x


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, heads) for _ in range(depth)])
        for layer in self.layers:
            nn.init.normal_(layer.attention.proj.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(layer.mlp[3].weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
