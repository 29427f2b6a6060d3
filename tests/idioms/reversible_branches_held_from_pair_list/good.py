"""bad.py's reversible stack, its branches registered in a list of pairs and held by the
coupling blocks; each half takes one add per block (N = depth), and the model scales the
writers by it through the pairs."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class PreNormed(nn.Module):
    def __init__(self, width, body):
        super().__init__()
        self.norm, self.body = nn.LayerNorm(width), body

    def forward(self, x):
        return self.body(self.norm(x))


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return self.proj(F.scaled_dot_product_attention(*self.qkv(x).chunk(3, dim=-1)))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class KeepRng(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, *args, save=False, **kwargs):
        if save:
            self.state = torch.get_rng_state()
        return self.inner(*args, **kwargs)


class Coupling(nn.Module):
    def __init__(self, f, g):
        super().__init__()
        self.f, self.g = KeepRng(f), KeepRng(g)

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=-1)
        y1 = x1 + self.f(x2, save=self.training)
        y2 = x2 + self.g(y1, save=self.training)
        return torch.cat([y1, y2], dim=-1)


class RevModel(nn.Module):
    def __init__(self, width=64, depth=6):
        super().__init__()
        self.pairs = nn.ModuleList(
            [nn.ModuleList([PreNormed(width, Mixer(width)), PreNormed(width, MLP(width))]) for _ in range(depth)]
        )
        for mixer, mlp in self.pairs:
            nn.init.normal_(mixer.body.proj.weight, std=0.02 / math.sqrt(depth))
            nn.init.normal_(mlp.body.down.weight, std=0.02 / math.sqrt(depth))
        self.blocks = nn.ModuleList([Coupling(f, g) for f, g in self.pairs])
        self.out = nn.Linear(width, 10)

    def forward(self, x):
        x = torch.cat([x, x], dim=-1)
        for block in self.blocks:
            x = block(x)
        return self.out(torch.stack(x.chunk(2, dim=-1)).mean(dim=0))
