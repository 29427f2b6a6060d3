"""bad.py's fields read with `getattr(config, name, fallback)`, the writers then given the std
divided by sqrt(2 * n_blocks)."""
import math
from dataclasses import dataclass

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class NetConfig:
    width: int = 512
    n_blocks: int = 16
    init_range: float = 0.02
    use_width_scaling: bool = False
    reference_width: int = 128


class Layer(nn.Module):
    def __init__(self, config: NetConfig):
        super().__init__()
        self.pre_mix = nn.LayerNorm(config.width)
        self.mix = nn.Linear(config.width, config.width)
        self.mix_back = nn.Linear(config.width, config.width)
        self.pre_ffn = nn.LayerNorm(config.width)
        self.expand = nn.Linear(config.width, 4 * config.width)
        self.contract = nn.Linear(4 * config.width, config.width)

    def forward(self, x):
        x = x + self.mix_back(self.mix(self.pre_mix(x)).tanh())
        return x + self.contract(F.relu(self.expand(self.pre_ffn(x))))


class Net(nn.Module):
    def __init__(self, config: NetConfig):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([Layer(config) for _ in range(config.n_blocks)])
        self.apply(self._init)
        depth_std = self.config.init_range / math.sqrt(2 * getattr(self.config, "n_blocks", 16))
        for layer in self.layers:
            nn.init.normal_(layer.mix_back.weight, std=depth_std)
            nn.init.normal_(layer.contract.weight, std=depth_std)

    def _init(self, module):
        if getattr(self.config, "use_width_scaling", False):
            mult = self.config.width / getattr(self.config, "reference_width", 128)
        else:
            mult = 1.0
        if isinstance(module, nn.Linear):
            std = getattr(self.config, "init_range", 0.02)
            nn.init.normal_(module.weight, std=std / math.sqrt(mult) if mult > 1 else std)
            nn.init.zeros_(module.bias)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
