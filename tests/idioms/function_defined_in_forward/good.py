"""`forward` defines a small function that runs the attention (with the mask it closes over)
and calls it on the normalised stream; the writers are depth-scaled."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.o_proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.o_proj(F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = Attention(dim)
        self.norm_1 = nn.LayerNorm(dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x, mask=None, use_cache=False):
        cache = None

        def _attend(h):
            nonlocal cache
            out = self.attn(h, mask=mask)
            if use_cache:
                cache = out
            return out

        x = x + _attend(self.norm_1(x))
        return x + self.down(F.gelu(self.fc(self.norm_2(x))))


class Model(nn.Module):
    def __init__(self, dim=256, depth=12):
        super().__init__()
        self.embed = nn.Embedding(1000, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.apply(self._init)
        for block in self.blocks:
            for writer in (block.attn.o_proj, block.down):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * depth))

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
