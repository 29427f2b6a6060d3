"""The same cross-attention layers without the tanh gates: the writers keep std 0.02 with no
depth factor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CrossAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim, bias=False)
        self.kv = nn.Linear(dim, 2 * dim, bias=False)
        self.out_proj = nn.Linear(dim, dim, bias=False)  # expect: INI001

    def forward(self, x, media):
        k, v = self.kv(media).chunk(2, dim=-1)
        return self.out_proj(F.scaled_dot_product_attention(self.q(x), k, v))


class GatedCrossLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_attn = nn.LayerNorm(dim)
        self.attn = CrossAttention(dim)
        self.norm_ff = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))  # expect: INI001

    def forward(self, x, media):
        x = x + self.attn(self.norm_attn(x), media)
        return x + self.ff(self.norm_ff(x))


class MediaConditioner(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([GatedCrossLayer(dim) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, x, media):
        for layer in self.layers:
            x = layer(x, media)
        return x
