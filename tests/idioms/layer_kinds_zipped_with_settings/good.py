"""The good twin: writers drawn with a depth factor. Layers built one per kind of a pattern
repeated per block, zipped beside a setting the same for all: one layer of each kind per pass."""
import torch
import torch.nn as nn


class Mixer(nn.Module):
    def __init__(self, width, n_adds):
        super().__init__()
        self.inp = nn.Linear(width, 2 * width)
        self.outp = nn.Linear(width, width)
        nn.init.normal_(self.outp.weight, std=0.02 / n_adds**0.5)

    def forward(self, x):
        a, b = self.inp(x).chunk(2, dim=-1)
        return self.outp(a * torch.sigmoid(b))


class Mlp(nn.Module):
    def __init__(self, width, hidden, n_adds):
        super().__init__()
        self.grow = nn.Linear(width, hidden)
        self.shrink = nn.Linear(hidden, width)
        nn.init.normal_(self.shrink.weight, std=0.02 / n_adds**0.5)

    def forward(self, x):
        return self.shrink(torch.relu(self.grow(x)))


class KindStack(nn.Module):
    def __init__(self, width=64, depth=6, dropout=0.0):
        super().__init__()
        kinds = ("mix", "mlp") * depth
        drops = (dropout,) * len(kinds)
        self.norms = nn.ModuleList([])
        self.layers = nn.ModuleList([])
        for kind, p in zip(kinds, drops):
            if kind == "mix":
                layer = Mixer(width, 2 * depth)
            else:
                layer = Mlp(width, 4 * width, 2 * depth)
            self.norms.append(nn.LayerNorm(width))
            self.layers.append(nn.Sequential(layer, nn.Dropout(p)))

    def forward(self, x):
        for norm, layer in zip(self.norms, self.layers):
            x = x + layer(norm(x))
        return x


class Gate(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.value = nn.Linear(width, width)
        self.merge = nn.Linear(width, width)
        nn.init.zeros_(self.merge.weight)

    def forward(self, x):
        return self.merge(torch.tanh(self.value(x)))


class TripleStack(nn.Module):
    def __init__(self, width=32, n_blocks=4, shift=0):
        super().__init__()
        order = ("mix", "gate", "mlp") * n_blocks
        shifts = (shift,) * len(order)
        self.blocks = nn.ModuleList()
        for i, (kind, s) in enumerate(zip(order, shifts)):
            if kind == "mix":
                inner = Mixer(width, 3 * n_blocks)
            elif kind == "gate":
                inner = Gate(width)
            else:
                inner = Mlp(width, 2 * width, 3 * n_blocks)
            self.blocks.append(nn.ModuleList([nn.RMSNorm(width), inner]))

    def forward(self, x):
        for norm, inner in self.blocks:
            x = x + inner(norm(x))
        return x
