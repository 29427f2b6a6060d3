"""Every fourth layer builds a global attention, the others a local one; the
layer chosen is bound to one name and wrapped by a pre-norm residual made with
`functools.partial`. Nothing scales the writers of either kind."""
from functools import partial

import torch.nn as nn
import torch.nn.functional as F


class PreNormResidual(nn.Module):
    def __init__(self, width, fn):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x)) + x


class LocalAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class GlobalAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.merge = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.merge(F.scaled_dot_product_attention(q, k, v))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, depth=12, global_every=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        wrap = partial(PreNormResidual, width)
        self.layers = nn.ModuleList([])
        for index in range(depth):
            if index % global_every == 0:
                attn = GlobalAttention(width)
            else:
                attn = LocalAttention(width)
            self.layers.append(nn.ModuleList([wrap(attn), wrap(MLP(width))]))

    def forward(self, tokens):
        x = self.embed(tokens)
        for attn, mlp in self.layers:
            x = attn(x)
            x = mlp(x)
        return x
