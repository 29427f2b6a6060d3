"""Blocks built by the config a model is handed, typed as a union (`block: BlockConfig |
dict[str, BlockConfig]`: one config for every layer, or named configs picked by a pattern), and
resolved per layer by a helper that tests `isinstance(block, dict)`. A value typed with the one
config class of such a union is read as an instance of it, as a plain `block: BlockConfig` is:
the helper repeats it, and each layer is what its `build` makes. Nothing scales the writers."""
from dataclasses import dataclass
from typing import Optional, Union

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, expand):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)  # expect: INI001
        self.norm_2 = nn.LayerNorm(width)
        self.widen = nn.Linear(width, expand * width)
        self.narrow = nn.Linear(expand * width, width)  # expect: INI001
        nn.init.normal_(self.mix.weight, std=0.02)
        nn.init.normal_(self.widen.weight, std=0.02)
        nn.init.normal_(self.narrow.weight, std=0.02)

    def forward(self, x):
        x = x + self.mix(self.norm_1(x))
        return x + self.narrow(self.widen(self.norm_2(x)).relu())


@dataclass
class BlockConfig:
    expand: int = 4

    def build(self, width: int, index: int) -> Block:
        return Block(width, self.expand)


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
            self.layers[str(index)] = configs[index].build(width, index)

    def forward(self, x):
        for layer in self.layers.values():
            x = layer(x)
        return x
