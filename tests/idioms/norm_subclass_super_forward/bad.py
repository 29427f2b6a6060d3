"""Norms that subclass a library norm and call its `forward` through `super()`: a time-conditioned
LayerNorm (`super().forward(x) * (1 + scale) + shift`) and an RMSNorm that casts around the
library's own. Each normalises the stream before the branch, so the blocks are pre-norm and the
ungated writers, at PyTorch's default init, owe a depth factor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TimeLayerNorm(nn.LayerNorm):
    def __init__(self, width, time_width):
        super().__init__(width, elementwise_affine=False)
        self.to_scale_shift = nn.Linear(time_width, 2 * width)

    def forward(self, x, t):
        scale, shift = self.to_scale_shift(t).unsqueeze(1).chunk(2, dim=-1)
        return super().forward(x) * (1 + scale) + shift


class DenoiserBlock(nn.Module):
    def __init__(self, width, time_width):
        super().__init__()
        self.norm1 = TimeLayerNorm(width, time_width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attn_out = nn.Linear(width, width)  # expect: INI001
        self.norm2 = TimeLayerNorm(width, time_width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x, t):
        q, k, v = self.qkv(self.norm1(x, t)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v))
        return x + self.down(F.gelu(self.up(self.norm2(x, t))))


class Denoiser(nn.Module):
    def __init__(self, width=256, time_width=64, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([DenoiserBlock(width, time_width) for _ in range(depth)])

    def forward(self, x, t):
        for block in self.blocks:
            x = block(x, t)
        return x


class Float32RMSNorm(nn.RMSNorm):
    def forward(self, x):
        return super().forward(x.float()).type_as(x)


class MLPLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = Float32RMSNorm(dim)
        self.w_in = nn.Linear(dim, 2 * dim)
        self.w_out = nn.Linear(2 * dim, dim)  # expect: INI001

    def forward(self, h):
        return h + self.w_out(F.silu(self.w_in(self.norm(h))))


class MLPStack(nn.Module):
    def __init__(self, dim=128, n_layers=6):
        super().__init__()
        self.layers = nn.ModuleList([MLPLayer(dim) for _ in range(n_layers)])

    def forward(self, h):
        for layer in self.layers:
            h = layer(h)
        return h
