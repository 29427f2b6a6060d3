"""The generic init reads the config's fields with `getattr(config, name, fallback)`: a width
multiplier taken only when `use_width_scaling` is set (off in the dataclass), so the std is the
plain `init_range`. The fallback only serves configs without the field; this one declares it.
The writers end with the plain std, no depth factor."""
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
        self.mix_back = nn.Linear(config.width, config.width)  # expect: INI001
        self.pre_ffn = nn.LayerNorm(config.width)
        self.expand = nn.Linear(config.width, 4 * config.width)
        self.contract = nn.Linear(4 * config.width, config.width)  # expect: INI001

    def forward(self, x):
        x = x + self.mix_back(self.mix(self.pre_mix(x)).tanh())
        return x + self.contract(F.relu(self.expand(self.pre_ffn(x))))


class Net(nn.Module):
    def __init__(self, config: NetConfig):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([Layer(config) for _ in range(config.n_blocks)])
        self.apply(self._init)

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
