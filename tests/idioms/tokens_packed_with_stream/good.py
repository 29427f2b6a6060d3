"""Memory tokens packed with the normalised input of each attention, register tokens with the
stream before the blocks, the output projections scaled by 1/sqrt(2 * depth) after the generic
init: GPT-2 scaling, nothing to report."""
import math

import torch
import torch.nn as nn
from einops import pack, unpack


class Attention(nn.Module):
    def __init__(self, dim, n_memory=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.memory = nn.Parameter(torch.zeros(n_memory, dim))
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.mix = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        h = self.norm(x)
        memory = self.memory.expand(h.shape[0], -1, -1)
        h, shapes = pack([memory, h], "b * d")
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1)
        _, out = unpack(weights @ v, shapes, "b * d")
        return self.mix(out)


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return self.net(x)


class Transformer(nn.Module):
    def __init__(self, dim=128, depth=6, n_registers=4):
        super().__init__()
        self.registers = nn.Parameter(torch.zeros(n_registers, dim))
        self.layers = nn.ModuleList([nn.ModuleList([Attention(dim), FeedForward(dim)]) for _ in range(depth)])
        self.apply(self._init_weights)
        for attn, ff in self.layers:
            nn.init.normal_(attn.mix.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(ff.net[3].weight, std=0.02 / math.sqrt(2 * depth))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        registers = self.registers.expand(x.shape[0], -1, -1)
        x, shapes = pack([registers, x], "b * d")
        for attn, ff in self.layers:
            x = x + attn(x)
            x = x + ff(x)
        _, x = unpack(x, shapes, "b * d")
        return x
