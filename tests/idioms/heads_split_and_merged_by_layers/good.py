"""Attention whose heads are split and merged by einops `Rearrange` layers, the fused
projection unpacked into q, k, v first, queries and keys rotated by another package; both writers are depth-scaled."""
import math

import torch.nn as nn
from einops.layers.torch import Rearrange
from rotary_embedding_torch import RotaryEmbedding


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.rotary_emb = RotaryEmbedding(dim // heads)
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.split_heads = Rearrange("b n (qkv h d) -> qkv b h n d", qkv=3, h=heads)
        self.merge_heads = Rearrange("b h n d -> b n (h d)")
        self.drop = nn.Dropout(0.1)
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        x = self.norm(x)
        q, k, v = self.split_heads(self.to_qkv(x))
        q, k = self.rotary_emb.rotate_queries_with_cached_keys(q, k)
        attn = (q @ k.transpose(-1, -2)).softmax(dim=-1)
        out = self.merge_heads(self.drop(attn @ v))
        return self.to_out(out)


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * 4), nn.GELU())
        self.proj_out = nn.Linear(dim * 4, dim)

    def forward(self, x):
        return self.proj_out(self.net(x))


class Transformer(nn.Module):
    def __init__(self, num_tokens=256, dim=256, depth=8):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.layers = nn.ModuleList([nn.ModuleList([Attention(dim), FeedForward(dim)]) for _ in range(depth)])
        self.to_logits = nn.Linear(dim, num_tokens)
        for name, param in self.named_parameters():
            if param.dim() < 2:
                continue
            std = 0.02 / math.sqrt(2 * depth) if name.endswith(("proj_out.weight", "to_out.weight")) else 0.02
            nn.init.normal_(param, std=std)

    def forward(self, tokens):
        x = self.token_emb(tokens)
        for attn, ff in self.layers:
            x = attn(x) + x
            x = ff(x) + x
        return self.to_logits(x)
