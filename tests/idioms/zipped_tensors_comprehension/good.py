"""An attention that mixes two inputs slice by slice: `q, k, v` come from a comprehension over
`zip` of the node and pair projections, each split in three. Both writers are scaled."""

import math

import torch
import torch.nn as nn


class PairAttention(nn.Module):
    def __init__(self, dim, dim_pair, n_head):
        super().__init__()
        self.n_head = n_head
        self.norm = nn.LayerNorm(dim)
        self.pair_norm = nn.LayerNorm(dim_pair)
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.pair_qkv = nn.Linear(dim_pair, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x, pair):
        x = self.norm(x)
        pair = self.pair_norm(pair)
        node_parts = self.to_qkv(x).chunk(3, dim=-1)
        pair_parts = self.pair_qkv(pair).mean(dim=2).chunk(3, dim=-1)
        q, k, v = tuple(a + b for a, b in zip(node_parts, pair_parts))
        weights = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)
        return self.out(weights @ v)


class Block(nn.Module):
    def __init__(self, dim, dim_pair, n_head):
        super().__init__()
        self.attn = PairAttention(dim, dim_pair, n_head)
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x, pair):
        x = x + self.attn(x, pair)
        return x + self.down(torch.relu(self.up(self.norm(x))))


class PairModel(nn.Module):
    def __init__(self, dim=256, dim_pair=32, n_head=8, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, dim_pair, n_head) for _ in range(n_layer)])
        for name, p in self.named_parameters():
            if p.dim() < 2:
                continue
            std = 0.02 / math.sqrt(2 * n_layer) if name.endswith(("down.weight", "out.weight")) else 0.02
            nn.init.normal_(p, std=std)

    def forward(self, x, pair):
        for block in self.blocks:
            x = block(x, pair)
        return x
