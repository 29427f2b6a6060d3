"""One stream runs through two block lists in turn; the writers are scaled by the adds of both,
1/sqrt(2 * (n_low + n_high))."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.norm_2 = nn.LayerNorm(width)
        self.mlp = MLP(width)

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.mlp(self.norm_2(x))


class TwoStage(nn.Module):
    def __init__(self, width=64, n_low=4, n_high=8):
        super().__init__()
        self.low = nn.ModuleList([Block(width) for _ in range(n_low)])
        self.high = nn.ModuleList([Block(width) for _ in range(n_high)])
        self.mid_norm = nn.LayerNorm(width)
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith(("out.weight", "down.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * (n_low + n_high)))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.low:
            x = block(x)
        x = self.mid_norm(x)
        for block in self.high:
            x = block(x)
        return x
