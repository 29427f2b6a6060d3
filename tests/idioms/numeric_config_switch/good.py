"""The init is versioned by a numeric config field; the default (version 2) gives the writers
the depth factor."""
import math
from dataclasses import dataclass

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class LMConfig:
    d_model: int = 256
    n_layers: int = 12
    init_version: int = 2


class Block(nn.Module):
    def __init__(self, config: LMConfig):
        super().__init__()
        self.norm_1 = nn.LayerNorm(config.d_model)
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.attn_out = nn.Linear(config.d_model, config.d_model)
        self.norm_2 = nn.LayerNorm(config.d_model)
        self.ff_in = nn.Linear(config.d_model, 4 * config.d_model)
        self.ff_out = nn.Linear(4 * config.d_model, config.d_model)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.ff_out(F.gelu(self.ff_in(self.norm_2(x))))


class LM(nn.Module):
    def __init__(self, config: LMConfig):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(1000, config.d_model)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.n_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, Block):
            std = 0.02
            if self.config.init_version >= 2:
                std = 0.02 / math.sqrt(2 * self.config.n_layers)
            for writer in (module.attn_out, module.ff_out):
                nn.init.normal_(writer.weight, std=std)

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x)
        return x
