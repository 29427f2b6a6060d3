"""bad.py's GPT-2 loop also matches the layer's own parameter (`c_proj.base_weight`)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedBasisLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.base_weight = nn.Parameter(torch.empty(d_out, d_in))
        nn.init.kaiming_uniform_(self.base_weight, a=math.sqrt(5))

    def forward(self, x):
        return F.linear(F.silu(x), self.base_weight)


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(width)
        self.c_attn = nn.Linear(width, 3 * width)
        self.c_proj = GatedBasisLinear(width, width)
        self.ln_2 = nn.LayerNorm(width)
        self.c_fc = nn.Linear(width, 4 * width)
        self.mlp_proj = nn.Linear(4 * width, width)

    def attend(self, h):
        b, t, c = h.shape
        q, k, v = self.c_attn(h).view(b, t, 3, self.heads, c // self.heads).transpose(1, 3).unbind(2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))

    def forward(self, x):
        x = x + self.attend(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=1000, width=128, heads=4, n_layer=6):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.h = nn.ModuleList([Block(width, heads) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(width)
        for name, param in self.named_parameters():
            if name.endswith(("c_proj.base_weight", "mlp_proj.weight")):
                nn.init.normal_(param, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def forward(self, tokens):
        x = self.wte(tokens)
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
