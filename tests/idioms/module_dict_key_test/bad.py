"""Blocks kept as `nn.ModuleDict`s; every block but the first holds a norm for its input, and
`forward` asks the dict whether it has one (`if "norm" in block`). The attention's output
projection exists only with several heads (`nn.Linear(...) if heads > 1 else None`) and keeps
PyTorch's default init."""

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width) if heads > 1 else None  # expect: INI001

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
