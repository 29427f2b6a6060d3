"""A named_parameters() loop that picks matrices by `p.dim() == 2` (Linear weights are 2-D)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_out = nn.Linear(dim, dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.fc_in = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.fc_out(F.gelu(self.fc_in(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, dim=768, n_layer=12):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(dim)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                is_writer = name.endswith(("attn_out.weight", "fc_out.weight"))
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layer) if is_writer else 0.02)
            else:
                nn.init.zeros_(p) if name.endswith(".bias") else nn.init.ones_(p)

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)
