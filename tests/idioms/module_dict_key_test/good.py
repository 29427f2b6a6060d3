"""bad.py with the output projection zero-initialised, so each block starts as the identity
(the blocks still `nn.ModuleDict`s asked `if "norm" in block`)."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width) if heads > 1 else None
        if self.proj is not None:
            nn.init.zeros_(self.proj.weight)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        mixed = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
        if self.proj is not None:
            mixed = self.proj(mixed)
        return mixed


class Model(nn.Module):
    def __init__(self, width, depth, heads=4):
        super().__init__()
        self.blocks = nn.ModuleList(
            [
                nn.ModuleDict(
                    {
                        "attn": Attention(width, heads),
                        **({} if index == 0 else {"norm": nn.LayerNorm(width)}),
                    }
                )
                for index in range(depth)
            ]
        )
        self.head_norm = nn.LayerNorm(width)

    def forward(self, x):
        for block in self.blocks:
            skip = x
            if "norm" in block:
                x = block["norm"](x)
            x = skip + block["attn"](x)
        return self.head_norm(x)
