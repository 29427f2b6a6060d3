"""A helper named like an init (`_init_device`) that only picks a device, called by a method the
construction does not run; the model's own init scales the writers by the depth."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _init_device(name):
    if name is not None:
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm_1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm_2 = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down(F.gelu(self.up(self.norm_2(x))))


class LM(nn.Module):
    def __init__(self, vocab=1000, d=256, n_layers=12):
        super().__init__()
        self.n_layers = n_layers
        self.wte = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, Block):
            for writer in (module.proj, module.down):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * self.n_layers))

    def causal_mask(self, size, device_name=None):
        return torch.ones(size, size, device=_init_device(device_name)).tril()

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x)
        return x
