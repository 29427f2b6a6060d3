"""A reversible stack whose branches the model registers first, in a list of (mixer, mlp)
pairs, then hands to a sequence that keeps each pair in a coupling block
(`Coupling(f, g) for f, g in pairs`) behind an RNG-keeping wrapper, and runs the blocks in a
custom autograd function under `no_grad` (`y1 = x1 + f(x2)`, `y2 = x2 + g(y1)`). PyTorch names
the writers under the list of pairs, not under the blocks whose adds they make. Each half takes
one add per block (N = depth), and the model scales the writers by it through the pairs."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function


class PreNormed(nn.Module):
    def __init__(self, width, body):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.body = body

    def forward(self, x, **kwargs):
        return self.body(self.norm(x), **kwargs)


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v))


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
        self.state = None

    def forward(self, *args, save=False, replay=False, **kwargs):
        if save:
            self.state = torch.get_rng_state()
        if not replay:
            return self.inner(*args, **kwargs)
        with torch.random.fork_rng():
            torch.set_rng_state(self.state)
            return self.inner(*args, **kwargs)


class Coupling(nn.Module):
    def __init__(self, f, g):
        super().__init__()
        self.f = KeepRng(f)
        self.g = KeepRng(g)

    def forward(self, x):
        x1, x2 = torch.chunk(x, 2, dim=-1)
        with torch.no_grad():
            y1 = x1 + self.f(x2, save=self.training)
            y2 = x2 + self.g(y1, save=self.training)
        return torch.cat([y1, y2], dim=-1)


class RunAll(Function):
    @staticmethod
    def forward(ctx, x, blocks):
        for block in blocks:
            x = block(x)
        ctx.blocks = blocks
        ctx.y = x.detach()
        return x

    @staticmethod
    def backward(ctx, dy):
        return dy, None


class RevChain(nn.Module):
    def __init__(self, pairs):
        super().__init__()
        self.blocks = nn.ModuleList([Coupling(f, g) for f, g in pairs])

    def forward(self, x):
        x = torch.cat([x, x], dim=-1)
        out = RunAll.apply(x, self.blocks)
        return torch.stack(out.chunk(2, dim=-1)).mean(dim=0)


class RevModel(nn.Module):
    def __init__(self, width=64, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(nn.ModuleList([PreNormed(width, Mixer(width)), PreNormed(width, MLP(width))]))
        for mixer, mlp in self.layers:
            nn.init.normal_(mixer.body.proj.weight, std=0.02 / math.sqrt(depth))
            nn.init.normal_(mlp.body.down.weight, std=0.02 / math.sqrt(depth))
        self.chain = RevChain(self.layers)
        self.out = nn.Linear(width, 10)

    def forward(self, x):
        return self.out(self.chain(x))
