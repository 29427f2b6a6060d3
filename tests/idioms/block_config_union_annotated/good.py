"""Blocks built by a config typed as a union (`block: BlockConfig | dict[str, BlockConfig]`),
resolved per layer by a helper that tests `isinstance(block, dict)`; each block is handed the
depth and scales its writers by sqrt(2 * n_layers)."""
from dataclasses import dataclass
from typing import Optional, Union

import math

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, expand, n_layers):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.norm_2 = nn.LayerNorm(width)
        self.widen = nn.Linear(width, expand * width)
        self.narrow = nn.Linear(expand * width, width)
        nn.init.normal_(self.mix.weight, std=0.02 / math.sqrt(2 * n_layers))
        nn.init.normal_(self.widen.weight, std=0.02)
        nn.init.normal_(self.narrow.weight, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, x):
        x = x + self.mix(self.norm_1(x))
        return x + self.narrow(self.widen(self.norm_2(x)).relu())


@dataclass
class BlockConfig:
    expand: int = 4

    def build(self, width: int, n_layers: int) -> Block:
        return Block(width, self.expand, n_layers)


def per_layer(
    n_layers: int, block: Union[BlockConfig, dict[str, BlockConfig]], pattern: Optional[list[str]] = None
) -> list[BlockConfig]:
    configs: list[BlockConfig]
    if isinstance(block, dict):
        assert pattern is not None
        configs = [block[pattern[i % len(pattern)]] for i in range(n_layers)]
    else:
        configs = [block] * n_layers
    return configs


class Model(nn.Module):
    def __init__(self, *, width: int, n_layers: int, block: BlockConfig | dict[str, BlockConfig], pattern=None):
        super().__init__()
        configs = per_layer(n_layers, block, pattern)
        self.layers = nn.ModuleDict()
        for index in range(n_layers):
            self.layers[str(index)] = configs[index].build(width, n_layers)

    def forward(self, x):
        for layer in self.layers.values():
            x = layer(x)
        return x
