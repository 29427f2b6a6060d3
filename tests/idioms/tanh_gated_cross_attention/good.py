"""Flamingo-style gated cross-attention layers interleaved with a language model: each branch is
multiplied by `tanh(gate)`, a learned scalar that starts at zero, so the new layers begin as the
identity whatever their writers' init (deliberate, not a missing depth factor)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CrossAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim, bias=False)
        self.kv = nn.Linear(dim, 2 * dim, bias=False)
        self.out_proj = nn.Linear(dim, dim, bias=False)

    def forward(self, x, media):
        k, v = self.kv(media).chunk(2, dim=-1)
        return self.out_proj(F.scaled_dot_product_attention(self.q(x), k, v))


class GatedCrossLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_attn = nn.LayerNorm(dim)
        self.attn = CrossAttention(dim)
        self.norm_ff = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.gate_attn = nn.Parameter(torch.tensor([0.0]))
        self.gate_ff = nn.Parameter(torch.tensor([0.0]))

    def forward(self, x, media):
        x = x + torch.tanh(self.gate_attn) * self.attn(self.norm_attn(x), media)
        return x + self.ff(self.norm_ff(x)) * torch.tanh(self.gate_ff)


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
