"""The model builds one block and stacks deep copies of it (`_clones(block, n)`), as PyTorch's
own `TransformerEncoder` does; the copies keep the block's init."""
import copy

import torch.nn as nn
import torch.nn.functional as F


def _clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)  # expect: INI001
        self.norm_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)  # expect: INI001
        for linear in (self.qkv, self.proj, self.fc, self.out):
            nn.init.normal_(linear.weight, std=0.02)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.out(F.gelu(self.fc(self.norm_2(x))))


class Model(nn.Module):
    def __init__(self, dim=256, depth=12):
        super().__init__()
        self.embed = nn.Embedding(1000, dim)
        block = Block(dim)
        self.blocks = _clones(block, depth)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
