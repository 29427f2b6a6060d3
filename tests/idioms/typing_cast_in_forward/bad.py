"""The loop over a dict-of-layers stack narrows each entry's type with `typing.cast`, which
hands back its argument unchanged. Nothing scales the feed-forward writer."""

from typing import cast

import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width=64, n_blocks=6):
        super().__init__()
        self.blocks = nn.ModuleList(
            [
                nn.ModuleDict(
                    {
                        "norm": nn.LayerNorm(width),
                        "up": nn.Linear(width, 4 * width),
                        "down": nn.Linear(4 * width, width),  # expect: INI001
                    }
                )
                for _ in range(n_blocks)
            ]
        )

    def forward(self, x):
        for block in self.blocks:
            block = cast(nn.ModuleDict, block)
            x = x + block["down"](block["up"](block["norm"](x)).relu())
        return x
