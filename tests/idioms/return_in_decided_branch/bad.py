"""A wrapper that adds its input back unless told not to, returning from inside the `if`
(`if self.add_input: return x + ...`, then `return self.inner(x)` for the other case). The
default adds it, so the wrapped MLP is a residual branch; its last linear keeps PyTorch's
default init."""

from torch import nn


class MaybeResidual(nn.Module):
    def __init__(self, inner, add_input=True):
        super().__init__()
        self.add_input = add_input
        self.inner = inner

    def forward(self, x):
        if self.add_input:
            return x + self.inner(x)
        return self.inner(x)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(self.up(self.norm(x)).relu())


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mlp = MaybeResidual(Block(width))

    def forward(self, x):
        return self.mlp(x)


class Model(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
