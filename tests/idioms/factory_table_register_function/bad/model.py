"""Every linear comes from the registered table (a plain `nn.Linear` by default); the init
gives all of them the same 0.02, the residual writers included."""

import torch.nn as nn
import torch.nn.functional as F

from layers import make_linear


class Block(nn.Module):
    def __init__(self, width, options=None):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = make_linear(width, 3 * width, options=options)
        self.out = make_linear(width, width, options=options)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.up = make_linear(width, 4 * width, options=options)
        self.down = make_linear(4 * width, width, options=options)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class Model(nn.Module):
    def __init__(self, width=256, n_layer=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for name, param in self.named_parameters():
            if name.endswith("weight") and param.dim() == 2:
                nn.init.normal_(param, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
