"""Inits that draw into another tensor and copy it in:
`w.copy_(w.cpu().normal_(std=s).to(w.device))` (drawn on the CPU for the same numbers on any
device) and `w.copy_(torch.randn(shape) * s)`. The copy holds the draw's std, here a plain 0.02
without a depth factor on the pre-norm writers.

Two shapes: a model applying a per-module function, and one looping over its blocks."""

import torch
import torch.nn as nn


def draw_linear(module):
    if isinstance(module, nn.Linear):
        weight = module.weight.data
        weight.copy_(weight.cpu().normal_(mean=0.0, std=0.02).to(weight.device))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc_in = nn.Linear(width, 4 * width)
        self.fc_out = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.fc_out(torch.relu(self.fc_in(self.norm(x))))


class Net(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        self.apply(draw_linear)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Stage(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.pre = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, h):
        return h + self.proj(self.pre(h))


class Pipeline(nn.Module):
    def __init__(self, dim=32, depth=24):
        super().__init__()
        self.stages = nn.Sequential(*[Stage(dim) for _ in range(depth)])
        for stage in self.stages:
            stage.proj.weight.data.copy_(torch.randn(dim, dim) * 0.02)

    def forward(self, h):
        return self.stages(h)
