"""Learned tokens are joined to the stream with einops' `pack`: memory tokens to the normalised
input of each attention (cut off again with `unpack` before the output projection), register
tokens to the stream before the blocks. What the attention computes is still computed from the
normalised stream, so its output projection writes the residual stream: both writers keep 0.02
with no depth factor."""
import torch
import torch.nn as nn
from einops import pack, unpack


class Attention(nn.Module):
    def __init__(self, dim, n_memory=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.memory = nn.Parameter(torch.zeros(n_memory, dim))
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.mix = nn.Linear(dim, dim, bias=False)  # expect: INI001

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
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))  # expect: INI001

    def forward(self, x):
        return self.net(x)


class Transformer(nn.Module):
    def __init__(self, dim=128, depth=6, n_registers=4):
        super().__init__()
        self.registers = nn.Parameter(torch.zeros(n_registers, dim))
        self.layers = nn.ModuleList([nn.ModuleList([Attention(dim), FeedForward(dim)]) for _ in range(depth)])
        self.apply(self._init_weights)

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
