"""A stack of ModuleList pairs used by index: `layer[0](x) + x`, `layer[1](x) + x`."""
import math

import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        q, k, v = self.to_qkv(self.norm(x)).chunk(3, dim=-1)
        return self.to_out(nn.functional.scaled_dot_product_attention(q, k, v))


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return self.net(x)


class Transformer(nn.Module):
    def __init__(self, dim=512, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([nn.ModuleList([Attention(dim), FeedForward(dim)]) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        for layer in self.layers:
            nn.init.normal_(layer[0].to_qkv.weight, std=0.02)
            nn.init.normal_(layer[0].to_out.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(layer[1].net[1].weight, std=0.02)
            nn.init.normal_(layer[1].net[3].weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for layer in self.layers:
            x = layer[0](x) + x
            x = layer[1](x) + x
        return self.norm(x)
