"""A model that fills its transformer ModuleDict with `self.transformer.update(...)` step by step;
the MLP projection is missing from the scaled names."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.attn_proj = nn.Linear(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.mlp_proj = nn.Linear(4 * n_embd, n_embd)  # expect: INI001

    def forward(self, x):
        q, k, v = self.c_attn(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.attn_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, n_embd=768, n_layer=12, block_size=1024):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(vocab_size, n_embd)))
        self.transformer.update(dict(wpe=nn.Embedding(block_size, n_embd)))
        self.transformer.update(dict(h=nn.ModuleList([Block(n_embd) for _ in range(n_layer)])))
        self.transformer.update(dict(ln_f=nn.LayerNorm(n_embd)))
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("attn_proj.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        pos = self.transformer.wpe.weight[: idx.shape[1]]
        x = self.transformer.wte(idx) + pos
        for block in self.transformer.h:
            x = block(x)
        return self.transformer.ln_f(x)
