"""An init helper the constructor calls only behind a flag that is off by default.

`zero_init_out=False` leaves the output projections at PyTorch's default init: the helper is the
constructor's own option, not an entry point a trainer runs later.
"""
import torch.nn as nn
import torch.nn.functional as F


def init_to_zero_(linear):
    nn.init.zeros_(linear.weight)


class SelfAttention(nn.Module):
    def __init__(self, width, zero_init_out=False):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001
        if zero_init_out:
            init_to_zero_(self.out)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Mlp(nn.Module):
    def __init__(self, width, zero_init_out=False):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001
        if zero_init_out:
            init_to_zero_(self.down)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Layer(nn.Module):
    def __init__(self, width, zero_init_out):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.mix = SelfAttention(width, zero_init_out=zero_init_out)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = Mlp(width, zero_init_out=zero_init_out)

    def forward(self, x):
        x = x + self.mix(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Network(nn.Module):
    def __init__(self, vocab=1000, width=256, layers=12, zero_init_out=False):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width, zero_init_out) for _ in range(layers)])
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)
