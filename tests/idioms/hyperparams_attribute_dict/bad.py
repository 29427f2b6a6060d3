"""An encoder configured through an attribute dict built from its own defaults
(`SimpleNamespace(**defaults)`): the flag that would make it post-norm and the optional initializer
(a function from elsewhere) are read as attributes (`self.hp.post_norm`, `self.hp.initializer`), and
under the defaults the stack is pre-norm and nothing re-initialises its layers. The attention output
and the MLP down projection write the stream with PyTorch's default init, no depth factor."""

from types import SimpleNamespace

import torch.nn as nn
from mylib.initializers import get_initializer


class SelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.proj = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        return self.proj(self.attn(x, x, x, need_weights=False)[0])


class Encoder(nn.Module):
    def __init__(self, hparams=None):
        super().__init__()
        self.hp = SimpleNamespace(**{**self.default_hparams(), **(hparams or {})})
        self.attns = nn.ModuleList()
        self.attn_norms = nn.ModuleList()
        self.mlps = nn.ModuleList()
        self.mlp_norms = nn.ModuleList()
        for _ in range(self.hp.num_blocks):
            self.attns.append(SelfAttention(self.hp.dim, self.hp.heads))
            self.attn_norms.append(nn.LayerNorm(self.hp.dim))
            self.mlps.append(
                nn.Sequential(
                    nn.Linear(self.hp.dim, 4 * self.hp.dim),
                    nn.GELU(),
                    nn.Linear(4 * self.hp.dim, self.hp.dim),  # expect: INI001
                )
            )
            self.mlp_norms.append(nn.LayerNorm(self.hp.dim))
        if self.hp.initializer:
            initialize = get_initializer(self.hp.initializer)
            for name, param in self.named_parameters():
                if name.endswith("weight") and "norm" not in name:
                    initialize(param)

    @staticmethod
    def default_hparams():
        return {"num_blocks": 6, "dim": 512, "heads": 8, "post_norm": False, "initializer": None}

    def forward(self, x):
        for i in range(self.hp.num_blocks):
            if self.hp.post_norm:
                x = self.attn_norms[i](x + self.attns[i](x))
                x = self.mlp_norms[i](x + self.mlps[i](x))
            else:
                x = x + self.attns[i](self.attn_norms[i](x))
                x = x + self.mlps[i](self.mlp_norms[i](x))
        return x
