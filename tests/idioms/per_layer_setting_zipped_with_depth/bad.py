"""A per-layer setting given as one number or a tuple of one per layer: a lone number is made a
one-tuple and repeated `depth` times, then paired with the layer numbers by `zip`. Each layer's
two branches get their pre-norm through `map`. The writers keep PyTorch's default init."""

from functools import partial

from torch import nn


def as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


class PreNorm(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = inner

    def forward(self, x):
        return self.inner(self.norm(x))


class Mixer(nn.Module):
    def __init__(self, width, groups):
        super().__init__()
        self.groups = groups
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


class InOrder(nn.Module):
    def __init__(self, pairs):
        super().__init__()
        self.pairs = pairs

    def forward(self, x):
        for first, second in self.pairs:
            x = x + first(x)
            x = x + second(x)
        return x


class Model(nn.Module):
    def __init__(self, width, depth, groups=1):
        super().__init__()
        groups = as_tuple(groups)
        groups = groups * depth if len(groups) == 1 else groups
        wrap = partial(PreNorm, width)
        pairs = nn.ModuleList([])
        for _, layer_groups in zip(range(depth), groups):
            mixer, expand = Mixer(width, layer_groups), Expand(width)
            mixer, expand = map(wrap, (mixer, expand))
            pairs.append(nn.ModuleList([mixer, expand]))
        self.body = InOrder(pairs)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(self.body(x))
