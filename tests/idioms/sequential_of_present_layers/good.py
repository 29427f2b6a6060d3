"""The MLP is built by a factory function that hands its layers to a helper keeping only those
that are set (`nn.Sequential(*filter(is_set, layers))`): an optional depthwise conv is left out
by default. The residual writers are zero-initialised."""

import torch.nn as nn
import torch.nn.functional as F


def is_set(value):
    return value is not None


def chain(*layers):
    return nn.Sequential(*filter(is_set, layers))


def make_mlp(width, hidden, local_mixing=False):
    mixer = nn.Conv1d(hidden, hidden, 3, padding=1, groups=hidden) if local_mixing else None
    return chain(
        nn.Linear(width, hidden),
        nn.GELU(),
        mixer,
        nn.Linear(hidden, width),
    )


class SelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, n, d))


class Encoder(nn.Module):
    def __init__(self, width=256, depth=8, heads=4):
        super().__init__()
        self.layers = nn.ModuleList(
            [
                nn.ModuleList(
                    [nn.LayerNorm(width), SelfAttention(width, heads), nn.LayerNorm(width), make_mlp(width, 4 * width)]
                )
                for _ in range(depth)
            ]
        )
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for _, attn, _, mlp in self.layers:
            nn.init.zeros_(attn.out.weight)
            nn.init.zeros_(mlp[-1].weight)

    def forward(self, x):
        for norm1, attn, norm2, mlp in self.layers:
            x = x + attn(norm1(x))
            x = x + mlp(norm2(x))
        return x
