"""The stream travels in a named tuple with its mask; each block hands the attention a copy
whose tensor field is replaced by its norm (`tokens._replace(x=self.norm(tokens.x))`), so the
attention reads a normalised stream: pre-norm. The residual writers start at zero."""
from typing import NamedTuple

import torch
import torch.nn as nn


class Tokens(NamedTuple):
    x: torch.Tensor
    mask: torch.Tensor


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, tokens: Tokens):
        q, k, v = self.qkv(tokens.x).chunk(3, dim=-1)
        mixed = torch.softmax(q @ k.transpose(-1, -2) + tokens.mask, dim=-1) @ v
        return self.out(mixed)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.norm2 = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
        nn.init.zeros_(self.attn.out.weight)
        nn.init.zeros_(self.ff[2].weight)

    def forward(self, tokens: Tokens) -> Tokens:
        normed = tokens._replace(x=self.norm(tokens.x))
        x = tokens.x + self.attn(normed)
        x = x + self.ff(self.norm2(x))
        return tokens._replace(x=x)


class Model(nn.Module):
    def __init__(self, width=256, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, tokens: Tokens):
        for block in self.blocks:
            tokens = block(tokens)
        return tokens.x
