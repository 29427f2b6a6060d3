"""A block whose `forward` takes its layer index first and the stream second (the index picks a
cache slot); the stack hands each block its position. Both writers start at zero."""

from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, index: int, x: torch.Tensor, cache: Optional[dict] = None) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if cache is not None:
            k, v = cache.setdefault(index, (k, v))
        return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Layer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = SelfAttention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.ffn = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, index: int, x: torch.Tensor, cache: Optional[dict] = None) -> torch.Tensor:
        h = x + self.attn(index, self.norm1(x), cache)
        return h + self.ffn(self.norm2(h))


class Stack(nn.Module):
    def __init__(self, width=256, heads=4, depth=8):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, heads) for _ in range(depth)])
        for layer in self.layers:
            nn.init.zeros_(layer.attn.proj.weight)
            nn.init.zeros_(layer.ffn[2].weight)

    def forward(self, x, cache=None):
        for index, layer in enumerate(self.layers):
            x = layer(index, x, cache)
        return x
