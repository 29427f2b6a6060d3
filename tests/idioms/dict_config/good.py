"""A model configured by a plain dict: `cfg["n_layers"]` and `cfg.get("n_embd", 768)`."""
import math

import torch.nn as nn
import torch.nn.functional as F

DEFAULT_CONFIG = {"vocab_size": 50304, "n_layers": 12, "n_embd": 768}


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        width = cfg.get("n_embd", 768)
        self.ln_1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.ln_2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down(F.gelu(self.up(self.ln_2(x))))


class LM(nn.Module):
    def __init__(self, cfg=None):
        super().__init__()
        cfg = dict(DEFAULT_CONFIG, **(cfg or {}))
        self.embed = nn.Embedding(cfg["vocab_size"], cfg.get("n_embd", 768))
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg["n_layers"])])
        self.ln_f = nn.LayerNorm(cfg.get("n_embd", 768))
        resid_std = 0.02 / math.sqrt(2 * cfg["n_layers"])
        for block in self.blocks:
            for linear in (block.qkv, block.up):
                nn.init.normal_(linear.weight, std=0.02)
            for linear in (block.out, block.down):
                nn.init.normal_(linear.weight, std=resid_std)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)
