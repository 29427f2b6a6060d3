"""The norm layer is a constructor argument whose default is a factory (`partial(nn.LayerNorm,
eps=...)`), handed down to each block: the blocks are pre-norm as the defaults build them, and
the writers keep PyTorch's default init, no depth factor."""
from functools import partial

import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, width, make_norm):
        super().__init__()
        self.pre_attn = make_norm(width)
        self.attn = nn.MultiheadAttention(width, 8, batch_first=True)  # expect: INI001
        self.pre_ff = make_norm(width)
        self.up = nn.Linear(width, 4 * width)
        self.act = nn.GELU()
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        h = self.pre_attn(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.down(self.act(self.up(self.pre_ff(x))))


class Tower(nn.Module):
    def __init__(self, width, n_layers, make_norm=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, make_norm) for _ in range(n_layers)])
        self.final_norm = make_norm(width)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.final_norm(x)
