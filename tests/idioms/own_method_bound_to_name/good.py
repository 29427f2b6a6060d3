"""The same encoder with its writers scaled by the number of adds (two per layer): reading the
method bound to `run` finds them scaled, and nothing is reported."""

import math

import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class PreNorm(nn.Module):
    def __init__(self, width, fn):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fn = fn

    def forward(self, tokens):
        return self.fn(self.norm(tokens))


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, tokens):
        q, k, v = self.qkv(tokens).chunk(3, dim=-1)
        return self.out(nn.functional.scaled_dot_product_attention(q, k, v))


def feed_forward(width):
    return nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))


class PointEncoder(nn.Module):
    def __init__(self, width=96, depth=10, grad_checkpointing=False):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.ModuleList([PreNorm(width, Mixer(width)), PreNorm(width, feed_forward(width))]) for _ in range(depth)]
        )
        self.grad_checkpointing = grad_checkpointing
        std = 0.02 / math.sqrt(2 * depth)
        for mix, ff in self.layers:
            nn.init.normal_(mix.fn.out.weight, std=std)
            nn.init.normal_(ff.fn[2].weight, std=std)

    def _run(self, tokens):
        for mix, ff in self.layers:
            tokens = mix(tokens) + tokens
            tokens = ff(tokens) + tokens
        return tokens

    def _run_checkpointed(self, tokens):
        for mix, ff in self.layers:
            tokens = checkpoint(mix, tokens, use_reentrant=False) + tokens
            tokens = checkpoint(ff, tokens, use_reentrant=False) + tokens
        return tokens

    def forward(self, tokens):
        if self.grad_checkpointing and self.training:
            run = self._run_checkpointed
        else:
            run = self._run
        return run(tokens)
