"""Layers whose weights are bare matrices: the output matrices write the residual stream of the
model two files away (block.py puts them in a block, model.py stacks the blocks), each drawn
with a depth factor by the depth the layer is told."""
import math

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim, heads, depth):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.w_out = nn.Parameter(torch.empty(dim, dim))
        nn.init.normal_(self.w_out, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)
        z = nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        return z @ self.w_out


class FeedForward(nn.Module):
    def __init__(self, dim, hidden, depth):
        super().__init__()
        self.w_in = nn.Parameter(torch.empty(dim, hidden))
        self.w_out = nn.Parameter(torch.empty(hidden, dim))
        nn.init.normal_(self.w_in, std=0.02)
        nn.init.normal_(self.w_out, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        return nn.functional.gelu(x @ self.w_in) @ self.w_out
