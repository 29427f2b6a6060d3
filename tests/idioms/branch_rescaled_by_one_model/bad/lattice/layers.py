"""Blocks whose branches are divided by `residual_scale` in `forward`. One model of the project
passes a depth-dependent value; the other leaves it at 1 and initialises nothing, so its copies
of the writers keep PyTorch's default init: no depth factor. The first model's division is a
choice of its own construction, not an init the second could reach unseen."""
import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.merge = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        out = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
        return self.merge(out)


class Layer(nn.Module):
    def __init__(self, width, heads, residual_scale=1.0):
        super().__init__()
        self.residual_scale = residual_scale
        self.attention = SelfAttention(width, heads)
        self.ffn = nn.Sequential(
            nn.LayerNorm(width), nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)  # expect: INI001
        )

    def forward(self, x):
        x = x + self.attention(x) / self.residual_scale
        return x + self.ffn(x) / self.residual_scale
