"""A residual module's method hands back the stream and the skip it keeps (`h, skip, extra =
res.prepare(h)`); its `forward` adds the branch to the skip: the call is the add."""
import torch
import torch.nn as nn


class Skip(nn.Module):
    def __init__(self, width, scaled=False):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(width)) if scaled else None

    def prepare(self, h):
        return h, h, {}

    def forward(self, branch, skip, **extra):
        if self.scale is not None:
            skip = skip * self.scale
        return branch + skip


class Ffn(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, h):
        return self.fc2(torch.relu(self.fc1(h)))


class Net(nn.Module):
    def __init__(self, width=64, depth=8):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.ModuleList([nn.LayerNorm(width), Ffn(width), Skip(width)]) for _ in range(depth)]
        )

    def forward(self, h):
        for norm, ffn, res in self.layers:
            h, skip, extra = res.prepare(h)
            h = res(ffn(norm(h)), skip, **extra)
        return h


class Keep(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.RMSNorm(width)

    def split(self, h):
        return h, self.norm(h)

    def forward(self, update, kept):
        return kept + update


class Proj(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inner = nn.Linear(width, width)
        self.outer = nn.Linear(width, width)  # expect: INI001

    def forward(self, h):
        return self.outer(torch.tanh(self.inner(h)))


class Tower(nn.Module):
    def __init__(self, width=32, n_layer=6):
        super().__init__()
        self.projs = nn.ModuleList([Proj(width) for _ in range(n_layer)])
        self.keeps = nn.ModuleList([Keep(width) for _ in range(n_layer)])

    def forward(self, h):
        for proj, keep in zip(self.projs, self.keeps):
            kept, normed = keep.split(h)
            h = keep(proj(normed), kept)
        return h
