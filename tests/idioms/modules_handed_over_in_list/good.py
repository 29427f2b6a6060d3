"""The model builds each layer's (attention, MLP) pair into a plain list, hands the pairs over as
`nn.ModuleList(pairs)` to a runner that wraps every pair in a residual block and keeps only the
blocks: the pair list itself is never stored. The writers are zero-initialised."""

import torch.nn as nn
import torch.nn.functional as F


class PreNorm(nn.Module):
    def __init__(self, width, fn):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x))


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v))


class Residual(nn.Module):
    def __init__(self, f, g):
        super().__init__()
        self.f = f
        self.g = g

    def forward(self, x):
        x = x + self.f(x)
        return x + self.g(x)


class Runner(nn.Module):
    def __init__(self, pairs):
        super().__init__()
        self.blocks = nn.ModuleList([Residual(f, g) for f, g in pairs])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Model(nn.Module):
    def __init__(self, width=128, depth=6):
        super().__init__()
        pairs = []
        for _ in range(depth):
            mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
            pairs.append(nn.ModuleList([PreNorm(width, Attention(width)), PreNorm(width, mlp)]))
        self.runner = Runner(nn.ModuleList(pairs))
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for block in self.runner.blocks:
            nn.init.zeros_(block.f.fn.proj.weight)
            nn.init.zeros_(block.g.fn[2].weight)

    def forward(self, x):
        return self.runner(x)
