"""Attention over several kinds: q/k/v split from one fused projection, queries and keys gathered
in lists under an undecided `if`, the caller's mask handed to the kernel; projections a linear
module of the file's own; each branch adds its input back. The depth factor counts blocks."""

import torch
import torch.nn.functional as F
from torch import nn


class OwnLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d_out, d_in))

    def forward(self, x):
        return F.linear(x, self.weight)


def multi_kind_attention(query, key, value, kinds, mask=None):
    queries, keys = [], []
    if isinstance(query, tuple):
        query, extra = query
        queries.append(extra)
        keys.append(extra)
    for weight in kinds.values():
        queries.append(query * weight)
        keys.append(key)
    return F.scaled_dot_product_attention(torch.cat(queries, dim=-1), torch.cat(keys, dim=-1), value, attn_mask=mask)


class Attention(nn.Module):
    def __init__(self, dim, kinds):
        super().__init__()
        self.kinds = kinds
        self.norm = nn.LayerNorm(dim)
        self.qkv = OwnLinear(dim, 3 * dim)
        self.out = OwnLinear(dim, dim)

    def forward(self, x, mask=None):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return self.out(multi_kind_attention(q, k, v, self.kinds, mask)) + x


class Mlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = OwnLinear(dim, 4 * dim)
        self.down = OwnLinear(4 * dim, dim)

    def forward(self, x):
        return self.down(F.gelu(self.up(self.norm(x)))) + x


class Block(nn.Module):
    def __init__(self, dim, kinds):
        super().__init__()
        self.attn = Attention(dim, kinds)
        self.mlp = Mlp(dim)

    def forward(self, x, mask=None):
        return self.mlp(self.attn(x, mask))


class Model(nn.Module):
    def __init__(self, dim=64, num_layers=4):
        super().__init__()
        self.num_layers = num_layers
        self.blocks = nn.ModuleList(Block(dim, {"dot": 1.0, "dist": 0.5}) for _ in range(num_layers))
        self.apply(self._init_params)

    def _init_params(self, module):
        if isinstance(module, OwnLinear):
            nn.init.kaiming_uniform_(module.weight, nonlinearity="relu")
            module.weight.data /= self.num_layers**0.5  # expect: INI002

    def forward(self, x, mask=None):
        for block in self.blocks:
            x = block(x, mask)
        return x
