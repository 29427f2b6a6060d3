"""A fused norm imported from a kernel package initlint cannot read is known as a norm by its name
only: it may subclass `nn.LayerNorm`, so an init that tests `isinstance(module, nn.LayerNorm)`
and refuses any module it does not know is not known to stop at it; the MLP output is unscaled."""
import math

import torch.nn as nn
import torch.nn.functional as F
from fast_kernels.norms import FusedLayerNorm


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.ln_1 = FusedLayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attn_proj = nn.Linear(width, width)
        self.ln_2 = FusedLayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.fc_proj = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.attn_proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.fc_proj(F.gelu(self.fc(self.ln_2(x))))


class Model(nn.Module):
    def __init__(self, width=256, n_layer=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for name, param in self.named_parameters():
            module = self.get_submodule(name.rsplit(".", 1)[0])
            if isinstance(module, nn.LayerNorm):
                nn.init.ones_(param) if name.endswith("weight") else nn.init.zeros_(param)
            elif not isinstance(module, nn.Linear):
                raise ValueError(f"no init for {name}")
            elif name.endswith("attn_proj.weight"):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layer))
            else:
                nn.init.normal_(param, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
