"""The model's init is an entry point its user calls (`model.reset_parameters()`), which hands
on to each layer's own; the attention's constructor also calls its own `reset_parameters()` on
itself, which applies no model's init. Run as its user would, the model's entry point draws both
writers of the pre-norm blocks with 1/sqrt(dim), no depth factor."""

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)  # expect: INI001
        self.reset_parameters()

    def reset_parameters(self):
        for linear in (self.qkv, self.proj):
            nn.init.normal_(linear.weight, std=self.dim**-0.5)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.up = nn.Linear(dim, 4 * dim, bias=False)
        self.down = nn.Linear(4 * dim, dim, bias=False)  # expect: INI001

    def reset_parameters(self):
        for linear in (self.up, self.down):
            nn.init.normal_(linear.weight, std=self.dim**-0.5)

    def forward(self, x):
        return self.down(F.silu(self.up(x)))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_1, self.attn = nn.LayerNorm(dim), Attention(dim)
        self.norm_2, self.mlp = nn.LayerNorm(dim), MLP(dim)

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.mlp(self.norm_2(x))


class Decoder(nn.Module):
    def __init__(self, dim=512, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def reset_parameters(self):
        for block in self.blocks:
            block.attn.reset_parameters()
            block.mlp.reset_parameters()

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
