"""The same attention (`map(split_heads, (q, k, v))` handed back by a helper), its writers
given GPT-2's depth-scaled init."""
import math

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(width)
        self.wq = nn.Linear(width, width)
        self.wk = nn.Linear(width, width)
        self.wv = nn.Linear(width, width)
        self.wo = nn.Linear(width, width)

    def _project(self, x):
        x = self.norm(x)
        q, k, v = self.wq(x), self.wk(x), self.wv(x)
        return map(lambda t: t.unflatten(-1, (self.heads, -1)).transpose(1, 2), (q, k, v))

    def forward(self, x):
        q, k, v = self._project(x)
        out = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
        return self.wo(out.transpose(1, 2).flatten(-2))


class Layer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.attention = Attention(width, heads)
        self.mlp = nn.Sequential(
            nn.LayerNorm(width), nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x):
        x = x + self.attention(x)
        return x + self.mlp(x)


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, n_layers=16):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, heads) for _ in range(n_layers)])
        for layer in self.layers:
            nn.init.normal_(layer.attention.wo.weight, std=0.02 / math.sqrt(2 * n_layers))
            nn.init.normal_(layer.mlp[3].weight, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
