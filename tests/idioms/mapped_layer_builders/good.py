"""Layer builders wrapped by a memoising decorator through `map(memoise, (builders...))`, so
that layers can be shared when asked; each layer is a pre-norm block. The writer gets
std/sqrt(depth), one residual add per block."""

import math

from torch import nn


def memoise(build):
    built = {}

    def build_once(*args, share=False, **kwargs):
        if not share:
            return build(*args, **kwargs)
        if "layer" not in built:
            built["layer"] = build(*args, **kwargs)
        return built["layer"]

    return build_once


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(self.up(self.norm(x)).relu())


class Model(nn.Module):
    def __init__(self, width, depth, share_layers=False):
        super().__init__()
        new_block = lambda: Block(width)  # noqa: E731
        new_norm = lambda: nn.LayerNorm(width)  # noqa: E731
        new_block, new_norm = map(memoise, (new_block, new_norm))
        self.blocks = nn.ModuleList([])
        for i in range(depth):
            self.blocks.append(new_block(share=i > 0 and share_layers))
        self.final_norm = new_norm()
        for block in self.blocks:
            nn.init.normal_(block.down.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x)
