"""An init scheme picked by a value known only at run time (a command-line option, a config
field with no default): the analysis cannot tell which branch runs, but every branch draws the
weights without a depth factor, and so does PyTorch's default the early return keeps. Whatever
is picked, the pre-norm writers are not depth-scaled.

Two shapes: a helper function with an early return and an `if`/`elif` chain, called from the
constructor; a loop over `named_parameters` that may redraw with one of two plain stds or keep
the default."""

import torch
import torch.nn as nn


def apply_scheme(model, scheme="default"):
    if scheme == "default":
        return
    for param in model.parameters():
        if param.dim() > 1:
            if scheme == "xavier":
                nn.init.xavier_uniform_(param.data)
            elif scheme == "he":
                nn.init.kaiming_normal_(param.data, nonlinearity="relu")
            else:
                raise ValueError(scheme)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.hidden = nn.Linear(width, 4 * width)
        self.back = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.back(torch.relu(self.hidden(self.norm(x))))


class Net(nn.Module):
    def __init__(self, options, width=64, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        apply_scheme(self, options.init_scheme)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Unit(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.pre = nn.LayerNorm(dim)
        self.mix = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, h):
        return h + self.mix(self.pre(h))


class Chain(nn.Module):
    def __init__(self, settings, dim=48, depth=20):
        super().__init__()
        self.units = nn.Sequential(*[Unit(dim) for _ in range(depth)])
        for name, param in self.named_parameters():
            if name.endswith("weight") and param.dim() == 2:
                if settings.draw == "normal":
                    nn.init.normal_(param, std=0.02)
                elif settings.draw == "uniform":
                    nn.init.uniform_(param, -0.05, 0.05)

    def forward(self, h):
        return self.units(h)
