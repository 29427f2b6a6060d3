"""The feed-forward's width is chosen by `if`/`elif` on the config, and the `else` raises on the
line of the `else:` itself (`else: raise ValueError(...)`): one of the two is always built, so its
add counts though it is written in each arm of `if self.training` (dropout while training).
Each block adds 2 branches, N = 2 * depth, and 1/sqrt(depth) counts the blocks."""
import math

import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc = nn.Linear(dim, hidden)
        self.proj = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_attn = nn.LayerNorm(cfg.dim)
        self.attn = SelfAttention(cfg.dim)
        self.ln_ff = nn.LayerNorm(cfg.dim)
        if cfg.ff_ratio:
            self.ff = FeedForward(cfg.dim, cfg.ff_ratio * cfg.dim)
        elif cfg.ff_hidden:
            self.ff = FeedForward(cfg.dim, cfg.ff_hidden)
        else: raise ValueError("set ff_ratio or ff_hidden")
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_attn(x))
        h = self.ff(self.ln_ff(x))
        if self.training:
            x = x + self.drop(h)
        else:
            x = x + h
        return x


class Decoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.ModuleList(Layer(cfg) for _ in range(cfg.depth))
        self.ln_out = nn.LayerNorm(cfg.dim)
        for layer in self.layers:
            nn.init.normal_(layer.attn.proj.weight, std=0.02 / math.sqrt(cfg.depth))  # expect: INI002
            nn.init.normal_(layer.ff.proj.weight, std=0.02 / math.sqrt(cfg.depth))  # expect: INI002

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.ln_out(x)
