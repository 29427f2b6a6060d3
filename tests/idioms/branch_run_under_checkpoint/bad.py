"""Activation checkpointing: each branch runs as `checkpoint(fn, h)`, which computes `fn(h)`.
The writers keep PyTorch's default init."""
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, h):
        return self.down(F.gelu(self.up(h)))


class Layer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.pre_attn = nn.LayerNorm(width)
        self.mix = nn.MultiheadAttention(width, heads, batch_first=True)
        self.out = nn.Linear(width, width)  # expect: INI001
        self.pre_ff = nn.LayerNorm(width)
        self.ff = FeedForward(width)

    def attend(self, h):
        return self.out(self.mix(h, h, h, need_weights=False)[0])

    def forward(self, x):
        x = x + checkpoint(self.attend, self.pre_attn(x), use_reentrant=False)
        x = x + checkpoint(self.ff, self.pre_ff(x), use_reentrant=False)
        return x


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, layers=8):
        super().__init__()
        self.layers = nn.ModuleList(Layer(width, heads) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
