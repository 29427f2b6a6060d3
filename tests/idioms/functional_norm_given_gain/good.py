"""A pre-norm wrapper that normalises with the functional form, handing it the norm module's
gain (`F.layer_norm(x, shape, self.norm.weight)`): the two writers are drawn with std
0.02/sqrt(2 * depth), two adds per block."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class PreNormResidual(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        normed = F.layer_norm(x, (x.shape[-1],), self.norm.weight, torch.zeros_like(self.norm.weight))
        return self.fn(normed) + x


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.proj_in = nn.Linear(dim, dim * mult)
        self.proj_out = nn.Linear(dim * mult, dim)

    def forward(self, x):
        return self.proj_out(F.gelu(self.proj_in(x)))


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).view(b, n, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))


class Transformer(nn.Module):
    def __init__(self, num_tokens=256, dim=128, depth=6):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.layers = nn.ModuleList(
            [
                nn.ModuleList([PreNormResidual(dim, Attention(dim)), PreNormResidual(dim, FeedForward(dim))])
                for _ in range(depth)
            ]
        )
        self.norm = nn.LayerNorm(dim)
        self.to_logits = nn.Linear(dim, num_tokens)
        for name, p in self.named_parameters():
            if name.endswith(("to_out.weight", "proj_out.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * depth))

    def forward(self, tokens):
        x = self.token_emb(tokens)
        for attn, ff in self.layers:
            x = attn(x)
            x = ff(x)
        return self.to_logits(self.norm(x))
