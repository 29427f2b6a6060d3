"""bad.py with the attention's output projection scaled by 1/sqrt(2 * depth)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    @torch.no_grad()
    def init_from_teacher(self, teacher):
        self.up.weight.copy_(teacher.up.weight)
        self.down.weight.copy_(teacher.down.weight)

    def forward(self, h):
        return self.down(F.gelu(self.up(h)))


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm_1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm_2 = nn.LayerNorm(width)
        self.ff = FeedForward(width)

    def attend(self, h):
        b, t, c = h.shape
        q, k, v = self.qkv(h).view(b, t, 3, self.heads, c // self.heads).transpose(1, 3).unbind(2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, c))

    def forward(self, x):
        x = x + self.attend(self.norm_1(x))
        return x + self.ff(self.norm_2(x))


class Student(nn.Module):
    def __init__(self, vocab=1000, width=128, heads=4, depth=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        for block in self.blocks:
            nn.init.normal_(block.out.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
