"""A rotary embedding fills its frequency buffer lazily, from its own `forward` (an init method
that runs at the first call and touches no parameter); the MLP output is left unscaled."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Rotary(nn.Module):
    def __init__(self, dim, end=2048):
        super().__init__()
        self.dim, self.end = dim, end
        self._ready = False

    def init_frequencies(self):
        freqs = 1.0 / 10000 ** (torch.arange(0, self.dim, 2).float() / self.dim)
        self.register_buffer("freqs", torch.outer(torch.arange(self.end), freqs), persistent=False)
        self._ready = True

    def forward(self, x):
        if not self._ready:
            self.init_frequencies()
        return x * self.freqs[: x.shape[-2]].cos().repeat_interleave(2, dim=-1)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.rotary = Rotary(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.c_proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.mlp_proj = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.c_proj(F.scaled_dot_product_attention(self.rotary(q), self.rotary(k), v))
        return x + self.mlp_proj(F.gelu(self.fc(self.norm2(x))))


class Model(nn.Module):
    def __init__(self, width=256, n_layer=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for name, param in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layer))
            elif param.dim() == 2:
                nn.init.normal_(param, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
