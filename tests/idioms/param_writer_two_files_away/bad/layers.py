"""Layers whose weights are bare matrices: the output matrices write the residual stream of the
model two files away (block.py puts them in a block, model.py stacks the blocks). Checked on
its own, this file is read with that model: the writers keep std 0.02, no depth factor."""
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.w_out = nn.Parameter(torch.empty(dim, dim))  # expect: INI001
        nn.init.normal_(self.w_out, std=0.02)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)
        z = nn.functional.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        return z @ self.w_out


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w_in = nn.Parameter(torch.empty(dim, hidden))
        self.w_out = nn.Parameter(torch.empty(hidden, dim))  # expect: INI001
        nn.init.normal_(self.w_in, std=0.02)
        nn.init.normal_(self.w_out, std=0.02)

    def forward(self, x):
        return nn.functional.gelu(x @ self.w_in) @ self.w_out
