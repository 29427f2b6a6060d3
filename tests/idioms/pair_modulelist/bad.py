"""lucidrains-style stack: each layer is a ModuleList [attention, feed-forward] unpacked in a loop;
the attention output left at 0.02."""
import math

import torch.nn as nn


class PreNorm(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x))


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.attend = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.to_out = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        return self.to_out(self.attend(x, x, x, need_weights=False)[0])


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim * mult), nn.GELU(), nn.Linear(dim * mult, dim))

    def forward(self, x):
        return self.net(x)


class Transformer(nn.Module):
    def __init__(self, dim=512, depth=12):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(nn.ModuleList([PreNorm(dim, Attention(dim)), PreNorm(dim, FeedForward(dim))]))
        self.norm = nn.LayerNorm(dim)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
        for attn, ff in self.layers:
            nn.init.normal_(ff.fn.net[2].weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for attn, ff in self.layers:
            x = attn(x) + x
            x = ff(x) + x
        return self.norm(x)
