"""Meta-style SwiGLU, `w2(silu(w1 x) * w3 x)`: the loop scales `w3` (the value projection), not `w2`."""
import math

import torch.nn as nn
import torch.nn.functional as F


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)  # expect: INI001
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.norm2 = nn.RMSNorm(dim)
        self.mlp = SwiGLU(dim, 4 * dim)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp(self.norm2(x))


class Model(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, n_layer=12):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(n_layer)])
        for name, p in self.named_parameters():
            if p.dim() < 2:
                continue
            writer = name.endswith(("out.weight", "mlp.w3.weight"))
            nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layer) if writer else 0.02)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
