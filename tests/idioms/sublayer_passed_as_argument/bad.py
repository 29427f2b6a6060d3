"""A pre-norm block whose two branches are handed to a shared residual wrapper: the attention
as a lambda, the feed-forward as a module. The wrapper calls what it is handed and adds it
back, so each block makes two adds and the writers owe sqrt(2 * n_layer)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class AddNormed(nn.Module):
    def __init__(self, width, p):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.drop = nn.Dropout(p)

    def forward(self, x, branch):
        return x + self.drop(branch(self.norm(x)))


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, q, k, v, mask=None):
        out = F.scaled_dot_product_attention(self.qkv(q)[..., : q.size(-1)], k, v, attn_mask=mask)
        return self.proj(out)


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Layer(nn.Module):
    def __init__(self, width, p):
        super().__init__()
        self.attention = Attention(width)
        self.mlp = MLP(width)
        self.first = AddNormed(width, p)
        self.second = AddNormed(width, p)

    def forward(self, x, mask):
        x = self.first(x, lambda h: self.attention(h, h, h, mask=mask))
        return self.second(x, self.mlp)


class Encoder(nn.Module):
    def __init__(self, width=256, n_layer=6, p=0.1):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, p) for _ in range(n_layer)])
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith(("proj.weight", "down.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(n_layer))  # expect: INI002

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x
