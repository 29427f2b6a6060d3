"""ModernBERT-style stack whose first block has `nn.Identity()` as its attention norm."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim, layer_idx):
        super().__init__()
        if layer_idx == 0:
            self.norm1 = nn.Identity()
        else:
            self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v))
        x = x + self.fc2(F.gelu(self.fc1(self.norm2(x))))
        return x


class Encoder(nn.Module):
    def __init__(self, dim=768, depth=12):
        super().__init__()
        self.patch_embed = nn.Linear(768, dim)
        self.pre_norm = nn.LayerNorm(dim)
        self.blocks = nn.ModuleList([Block(dim, layer_idx=i) for i in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.depth = depth
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)
        if isinstance(m, Block):
            nn.init.trunc_normal_(m.proj.weight, std=0.02 / math.sqrt(2 * self.depth))
            nn.init.trunc_normal_(m.fc2.weight, std=0.02 / math.sqrt(2 * self.depth))

    def forward(self, x):
        x = self.pre_norm(self.patch_embed(x))
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
