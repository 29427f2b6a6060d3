"""Sublayers only; the model that stacks them lives two files away and never initialises them."""
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.to_qkv = nn.Linear(width, 3 * width, bias=False)
        self.to_out = nn.Linear(width, width, bias=False)  # expect: INI001

    def forward(self, x):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        return self.to_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class GatedMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.gate = nn.Linear(width, 2 * width, bias=False)
        self.up = nn.Linear(width, 2 * width, bias=False)
        self.down = nn.Linear(2 * width, width, bias=False)  # expect: INI001

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))
