"""Queries, keys and values cut from one fused projection, queries and keys rotated by another
package, then each put through the same head split over a tuple written out: by `map` with a
layer and with a lambda, and by a generator made a tuple. All the writers are
depth-scaled."""
import math

import torch.nn as nn
from einops import rearrange
from einops.layers.torch import Rearrange
from rotary_embedding_torch import RotaryEmbedding


class LayerSplit(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.rotary_emb = RotaryEmbedding(dim // heads)
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.scale = (dim // heads) ** -0.25
        self.split_heads = Rearrange("b n (h d) -> b h n d", h=heads)
        self.merge_heads = Rearrange("b h n d -> b n (h d)")
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        x = self.norm(x)
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k = self.rotary_emb.rotate_queries_with_cached_keys(q, k)
        q, k, v = map(self.split_heads, (q, k, v))
        q, k, v = map(lambda t: t * self.scale, (q, k, v))
        attn = (q @ k.transpose(-1, -2)).softmax(dim=-1)
        return self.to_out(self.merge_heads(attn @ v))


class GeneratorSplit(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.rotary_emb = RotaryEmbedding(dim // heads)
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        x = self.norm(x)
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q, k = self.rotary_emb.rotate_queries_with_cached_keys(q, k)
        q, k, v = tuple(rearrange(t, "b n (h d) -> b h n d", h=self.heads) for t in (q, k, v))
        attn = (q @ k.transpose(-1, -2)).softmax(dim=-1)
        return self.to_out(rearrange(attn @ v, "b h n d -> b n (h d)"))


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
        self.layers = nn.ModuleList(
            [nn.ModuleList([LayerSplit(dim), GeneratorSplit(dim), FeedForward(dim)]) for _ in range(depth)]
        )
        for name, param in self.named_parameters():
            std = 0.02 / math.sqrt(3 * depth) if name.endswith(("proj_out.weight", "to_out.weight")) else 0.02
            if param.dim() > 1:
                nn.init.normal_(param, std=std)

    def forward(self, tokens):
        x = self.token_emb(tokens)
        for attn, other_attn, ff in self.layers:
            x = attn(x) + x
            x = other_attn(x) + x
            x = ff(x) + x
        return x
