"""A decoder whose feed-forward comes from a factory: a plain MLP by default, a gated one when
`kind` names a GLU. The default decides what a bare call builds, but the factory's other return
is a model a user builds by passing `kind="glu"`: its writer keeps PyTorch's default init, with
no depth factor, like the plain one."""

import torch.nn as nn
import torch.nn.functional as F


class PlainMLP(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class GatedMLP(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.gate = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


def make_mlp(width, hidden, kind="plain"):
    if kind == "glu":
        return GatedMLP(width, hidden)
    return PlainMLP(width, hidden)


class Layer(nn.Module):
    def __init__(self, width, kind):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = make_mlp(width, 4 * width, kind)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Decoder(nn.Module):
    def __init__(self, width=128, depth=10, kind="plain"):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, kind) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
