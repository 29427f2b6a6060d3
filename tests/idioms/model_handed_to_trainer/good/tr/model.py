"""The model file's own model stacks its blocks and depth-scales its writers; a
trainer module elsewhere is handed the model (`model: LM`) and passes it to a call initlint
cannot follow. The file's own model keeps its answer."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.out(F.gelu(self.fc(self.norm_2(x))))


class LM(nn.Module):
    def __init__(self, dim=256, depth=12):
        super().__init__()
        self.embed = nn.Embedding(1000, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.apply(self._init)
        for block in self.blocks:  # (the rest keep PyTorch's defaults)
            for writer in (block.proj, block.out):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * depth))

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:  # (the rest keep PyTorch's defaults)
            x = block(x)
        return x
