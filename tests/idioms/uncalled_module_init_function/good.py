"""The fixed version of bad.py: the init functions are applied where the models are built, and
the residual writers are then drawn again with a depth factor (GPT-2's 0.02/sqrt(N)).

Two shapes: blocks in a `ModuleList` run by a loop, and blocks in an `nn.Sequential`."""

import math

import torch
import torch.nn as nn


def reset_linear(module):
    def redraw(tensor):
        tensor.copy_(tensor.cpu().normal_(mean=0.0, std=0.02).to(tensor.device))

    if isinstance(module, nn.Linear):
        redraw(module.weight.data)
        if module.bias is not None:
            module.bias.data.zero_()


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = nn.Linear(width, 2 * width)
        self.outer = nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.outer(torch.tanh(self.inner(self.norm(x))))


class MixerStack(nn.Module):
    def __init__(self, width=64, n_layer=16):
        super().__init__()
        self.mixers = nn.ModuleList([Mixer(width) for _ in range(n_layer)])
        self.apply(reset_linear)
        for mixer in self.mixers:
            nn.init.normal_(mixer.outer.weight, std=0.02 / math.sqrt(n_layer))

    def forward(self, x):
        for mixer in self.mixers:
            x = mixer(x)
        return x


def init_fresh(module):
    if isinstance(module, nn.Linear):
        module.weight.data.copy_(torch.randn(module.weight.shape) * 0.02)


class Unit(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.pre = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, h):
        return h + self.down(torch.relu(self.up(self.pre(h))))


class UnitTower(nn.Module):
    def __init__(self, dim=48, hidden=192, depth=20):
        super().__init__()
        self.units = nn.Sequential(*[Unit(dim, hidden) for _ in range(depth)])
        self.apply(init_fresh)
        for unit in self.units:
            nn.init.normal_(unit.down.weight, std=0.02 / math.sqrt(depth))

    def forward(self, h):
        return self.units(h)
