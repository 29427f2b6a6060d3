"""The same extended containers, with their writers zero-initialised."""

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        nn.init.zeros_(self.down.weight)

    def forward(self, x):
        return x + self.down(self.up(self.norm(x)).relu())


class Encoder(nn.Module):
    def __init__(self, dim=256, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList()
        self.blocks.extend([Block(dim) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Gated(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.out = nn.Linear(width, width)
        nn.init.zeros_(self.out.weight)

    def forward(self, h):
        return h + self.out(self.norm(h))


class Trunk(nn.Module):
    def __init__(self, width=128, n_layer=4):
        super().__init__()
        self.layers = nn.ModuleList()
        self.layers.extend(Gated(width) for _ in range(n_layer))

    def forward(self, h):
        for layer in self.layers:
            h = layer(h)
        return h
