"""The attention part of each block adds its branch itself and hands back the sum and the sum
normalised (`return residual, self.norm_2(x)`); the block runs its MLP on the normalised one and
adds it to the sum. Two adds per block: the writers get 1/sqrt(2 * n_layers)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v))


class NormAttnNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.norm_2 = nn.LayerNorm(width)

    def forward(self, x):
        residual = x
        x = self.attn(self.norm_1(x))
        x = x + residual
        residual = x
        return residual, self.norm_2(x)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_attn_norm = NormAttnNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        resid, h = self.norm_attn_norm(x)
        h = self.down(F.gelu(self.up(h)))
        return resid + h


class Net(nn.Module):
    def __init__(self, width=64, n_layers=12):
        super().__init__()
        self.n_layers = n_layers
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, Block):
            for writer in (m.norm_attn_norm.attn.out, m.down):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * self.n_layers))

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x
