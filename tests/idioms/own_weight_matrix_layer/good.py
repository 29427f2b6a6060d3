"""A layer written out in the file (its own weight matrix, multiplied with the input by
`F.linear`) ends each branch; the model rescales those writers by sqrt(2 * n_layer)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Dense(nn.Module):
    def __init__(self, n_out, n_in):
        super().__init__()
        self.n_out = n_out
        w = torch.empty(n_in, n_out)
        nn.init.normal_(w, std=0.02)
        self.weight = nn.Parameter(w)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        shape = x.size()[:-1] + (self.n_out,)
        return F.linear(x, self.weight.t(), self.bias).view(*shape)


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = Dense(3 * width, width)
        self.out = Dense(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).split(x.size(-1), dim=2)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = Dense(4 * width, width)
        self.down = Dense(width, 4 * width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = MLP(width)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class LM(nn.Module):
    def __init__(self, vocab=1000, width=128, n_layer=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(width)
        for name, param in self.named_parameters():
            if name.endswith(("out.weight", "down.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layer))

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)
