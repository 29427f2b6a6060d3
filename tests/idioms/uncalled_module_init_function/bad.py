"""Init functions of the file that its models never call: a trainer may `model.apply(...)` them.
Each draws every Linear with a plain std (0.02, drawn on the CPU and copied back, or copied from
a fresh `torch.randn`), so whether a trainer applies it or not, the pre-norm writers have no
depth factor.

Two shapes: blocks in a `ModuleList` run by a loop, and blocks in an `nn.Sequential`."""

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
        self.outer = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.outer(torch.tanh(self.inner(self.norm(x))))


class MixerStack(nn.Module):
    def __init__(self, width=64, n_layer=16):
        super().__init__()
        self.mixers = nn.ModuleList([Mixer(width) for _ in range(n_layer)])

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
        self.down = nn.Linear(hidden, dim)  # expect: INI001

    def forward(self, h):
        return h + self.down(torch.relu(self.up(self.pre(h))))


class UnitTower(nn.Module):
    def __init__(self, dim=48, hidden=192, depth=20):
        super().__init__()
        self.units = nn.Sequential(*[Unit(dim, hidden) for _ in range(depth)])

    def forward(self, h):
        return self.units(h)
