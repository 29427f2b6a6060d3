"""A pre-norm block whose feed-forward kind is looked up by name in the package's table."""

import torch.nn as nn
import torch.nn.functional as F

from tabled.mlps import MLP_KINDS


class SelfAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width, bias=False)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Block(nn.Module):
    def __init__(self, width, mlp="gelu"):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.attn = SelfAttention(width)
        self.mlp_norm = nn.LayerNorm(width)
        self.mlp = MLP_KINDS[mlp](width)

    def forward(self, x):
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))
