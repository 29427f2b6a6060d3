"""A truncated normal drawn by hand, by the inverse CDF: a uniform draw on the CDF values of the
cut points, mapped back through `erfinv_` (a normal of std 1/sqrt(2)), then scaled to the std
asked for. Every linear gets 0.02, cut at two stds; the writers 0.02 / sqrt(2 * depth)."""

import math

import torch
import torch.nn as nn


def draw_cut_normal(tensor, std, cut=2.0):
    below = 0.5 * (1.0 + math.erf(-cut / math.sqrt(2.0)))
    above = 0.5 * (1.0 + math.erf(cut / math.sqrt(2.0)))
    with torch.no_grad():
        tensor.uniform_(2 * below - 1, 2 * above - 1)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
    return tensor


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def attend(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)

    def forward(self, x):
        x = x + self.attend(self.norm1(x))
        return x + self.fc2(torch.relu(self.fc1(self.norm2(x))))


class Encoder(nn.Module):
    def __init__(self, dim=384, depth=12):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(depth)])
        self.apply(self._init_linear)
        for block in self.blocks:
            draw_cut_normal(block.proj.weight, std=0.02 / math.sqrt(2 * depth))
            draw_cut_normal(block.fc2.weight, std=0.02 / math.sqrt(2 * depth))

    def _init_linear(self, m):
        if isinstance(m, nn.Linear):
            draw_cut_normal(m.weight, std=0.02)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.blocks(x)
