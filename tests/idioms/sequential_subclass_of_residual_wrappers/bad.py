"""Each block is a subclass of `nn.Sequential` with no `forward` of its own: its `__init__` hands
two residual wrappers to `super().__init__`, and the library's `forward` runs them in turn. The
wrapper adds its input back with an in-place `+=` onto the branch's output. The mixing layer's
projection and the last linear of an MLP that is itself an `nn.Sequential` subclass keep
PyTorch's default init."""

from torch import nn


class AddBack(nn.Module):
    def __init__(self, branch):
        super().__init__()
        self.branch = branch

    def forward(self, x):
        kept = x
        x = self.branch(x)
        x += kept
        return x


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Linear(width, width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        return self.proj(self.mix(x).tanh() * x)


class TwoLayer(nn.Sequential):
    def __init__(self, width, hidden):
        super().__init__(
            nn.Linear(width, hidden),
            nn.ReLU(),
            nn.Linear(hidden, width),  # expect: INI001
            nn.Dropout(0.1),
        )


class Stage(nn.Sequential):
    def __init__(self, width):
        super().__init__(
            AddBack(nn.Sequential(nn.LayerNorm(width), Mixer(width))),
            AddBack(nn.Sequential(nn.LayerNorm(width), TwoLayer(width, 4 * width))),
        )


class Tower(nn.Module):
    def __init__(self, width=128, depth=10):
        super().__init__()
        self.stages = nn.Sequential(*[Stage(width) for _ in range(depth)])
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        return self.head(self.stages(x))
