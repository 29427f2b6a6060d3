"""A point-cloud encoder that keeps each layer as a pair of pre-norm wrappers and picks how to
run them in `forward`, binding that method to a name first (`run = self._run_checkpointed` under
gradient checkpointing, else `self._run`): the bound method is called as `self._run(tokens)`
would be, so the pairs' adds are read and their default-init writers have no depth factor."""

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
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, tokens):
        q, k, v = self.qkv(tokens).chunk(3, dim=-1)
        return self.out(nn.functional.scaled_dot_product_attention(q, k, v))


def feed_forward(width):
    return nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))  # expect: INI001


class PointEncoder(nn.Module):
    def __init__(self, width=96, depth=10, grad_checkpointing=False):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.ModuleList([PreNorm(width, Mixer(width)), PreNorm(width, feed_forward(width))]) for _ in range(depth)]
        )
        self.grad_checkpointing = grad_checkpointing

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
