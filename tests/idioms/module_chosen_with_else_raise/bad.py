"""The attention class is chosen by `if`/`elif` on the config, the `else` raising: one of the two
is always built, so its add counts even where it is made in one arm of `if self.training`
(dropout while training, plain otherwise). Each block adds 2 branches, N = 2 * n_layer, and
1/sqrt(n_layer) counts the blocks."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width, kv_heads):
        super().__init__()
        self.qkv = nn.Linear(width, width + 2 * kv_heads * 16)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        return self.out(self.qkv(x)[..., : x.shape[-1]])


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        width = config.width
        self.norm_1 = nn.LayerNorm(width)
        if config.multi_query:
            self.attn = Attention(width, 1)
        elif config.grouped_query:
            self.attn = Attention(width, config.kv_heads)
        else:
            raise ValueError("multi_query or grouped_query must be set")
        self.drop = nn.Dropout(config.dropout)
        self.norm_2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        h = self.attn(self.norm_1(x))
        if self.training:
            x = x + self.drop(h)
        else:
            x = x + h
        return x + self.down(F.gelu(self.up(self.norm_2(x))))


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        for block in self.blocks:
            for writer in (block.attn.out, block.down):
                nn.init.normal_(writer.weight, 0.0, 0.02 / math.sqrt(config.n_layer))  # expect: INI002

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
