"""Layer kinds spelled as a pattern of letters, repeated once per block.

`('s', 'm') * depth` lays out one self-attention and one MLP per block, each a branch of the
pre-norm stream: 2 * depth residual adds, and both outputs keep PyTorch's default init.
"""
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x, context=None):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Mlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class CrossAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.q = nn.Linear(width, width)
        self.kv = nn.Linear(width, 2 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x, context=None):
        k, v = self.kv(context).chunk(2, dim=-1)
        return self.out(F.scaled_dot_product_attention(self.q(x), k, v))


class Stack(nn.Module):
    def __init__(self, width=256, depth=12, with_context=False):
        super().__init__()
        if with_context:
            pattern = ("s", "x", "m")
        else:
            pattern = ("s", "m")
        self.kinds = pattern * depth
        self.norms = nn.ModuleList([])
        self.layers = nn.ModuleList([])
        for kind in self.kinds:
            if kind == "s":
                layer = SelfAttention(width)
            elif kind == "x":
                layer = CrossAttention(width)
            elif kind == "m":
                layer = Mlp(width)
            self.norms.append(nn.LayerNorm(width))
            self.layers.append(layer)

    def forward(self, x, context=None):
        for kind, norm, layer in zip(self.kinds, self.norms, self.layers):
            if kind == "m":
                x = x + layer(norm(x))
            else:
                x = x + layer(norm(x), context=context)
        return x
