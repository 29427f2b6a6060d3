"""The init scheme is a string field of the config dataclass; its default ("plain") draws the
writers with the base std, only "scaled" adds the depth factor."""

import math
from dataclasses import dataclass

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class LMConfig:
    d_model: int = 256
    n_layers: int = 12
    init_std: float = 0.02
    init_scheme: str = "plain"


class Block(nn.Module):
    def __init__(self, config: LMConfig):
        super().__init__()
        self.config = config
        self.norm_1 = nn.LayerNorm(config.d_model)
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)
        self.attn_out = nn.Linear(config.d_model, config.d_model)  # expect: INI001
        self.norm_2 = nn.LayerNorm(config.d_model)
        self.ff_in = nn.Linear(config.d_model, 4 * config.d_model)
        self.ff_out = nn.Linear(4 * config.d_model, config.d_model)  # expect: INI001

    def reset_parameters(self):
        if self.config.init_scheme == "plain":
            out_std = self.config.init_std
        elif self.config.init_scheme == "scaled":
            out_std = self.config.init_std / math.sqrt(2 * self.config.n_layers)
        else:
            raise NotImplementedError(self.config.init_scheme)
        for linear in (self.qkv, self.ff_in):
            nn.init.normal_(linear.weight, std=self.config.init_std)
        for linear in (self.attn_out, self.ff_out):
            nn.init.normal_(linear.weight, std=out_std)

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
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.normal_(self.wte.weight, std=self.config.init_std)
        for block in self.blocks:
            block.reset_parameters()

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x)
        return x
