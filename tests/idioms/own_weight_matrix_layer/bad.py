"""A layer written out in the file: its own weight matrix, initialised in its constructor on a
local tensor, multiplied with the input by `torch.addmm`. It is a linear layer, so the
projection it ends the branches with writes into the stream and owes sqrt(2 * n_layer)."""
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
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(*shape)


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = Dense(3 * width, width)
        self.out = Dense(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).split(x.size(-1), dim=2)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = Dense(4 * width, width)
        self.down = Dense(width, 4 * width)  # expect: INI001

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

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)
