"""A per-layer setting given as one number or a tuple, told apart by `type(heads) is not tuple`
and broadcast to one entry per layer before the stack is zipped with it. The stack holds
`depth` pre-norm layers whose writers keep PyTorch's default init with no depth factor."""

from torch import nn


class PreNorm(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = inner

    def forward(self, x):
        return self.inner(self.norm(x))


class Mixer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.mix = nn.Linear(width, width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        return self.out(self.mix(x).relu())


class Expand(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(self.up(x).relu())


class Model(nn.Module):
    def __init__(self, width, depth, heads=4):
        super().__init__()
        if type(heads) is not tuple:
            heads = tuple([heads] * depth)
        self.layers = nn.ModuleList([])
        for _, layer_heads in zip(range(depth), heads):
            pair = [PreNorm(width, Mixer(width, layer_heads)), PreNorm(width, Expand(width))]
            self.layers.append(nn.ModuleList(pair))
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        for mixer, expand in self.layers:
            x = x + mixer(x)
            x = x + expand(x)
        return self.norm(x)
