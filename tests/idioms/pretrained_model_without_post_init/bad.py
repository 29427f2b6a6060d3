"""A transformers model whose constructor never calls `post_init()`: its `_init_weights` runs only
if a loader or a trainer applies it. Applied or not, the writers keep a std with no depth
factor (PyTorch's default, or xavier_normal_ over every Linear)."""

import torch.nn as nn
import torch.nn.functional as F
from transformers import PretrainedConfig, PreTrainedModel


class TowerConfig(PretrainedConfig):
    model_type = "tower"

    def __init__(self, width=256, depth=8, **kwargs):
        super().__init__(**kwargs)
        self.width = width
        self.depth = depth


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_mix = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.mix_out = nn.Linear(width, width)  # expect: INI001
        self.pre_ff = nn.LayerNorm(width)
        self.widen = nn.Linear(width, 2 * width)
        self.narrow = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x):
        x = x + self.mix_out(F.gelu(self.mix(self.pre_mix(x))))
        return x + self.narrow(F.relu(self.widen(self.pre_ff(x))))


class Tower(PreTrainedModel):
    config_class = TowerConfig

    def __init__(self, config):
        super().__init__(config)
        self.stem = nn.Linear(4, config.width)
        self.layers = nn.ModuleList([Layer(config.width) for _ in range(config.depth)])

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.xavier_normal_(module.weight)
            if module.bias is not None:
                module.bias.data.zero_()

    def forward(self, x):
        x = self.stem(x)
        for layer in self.layers:
            x = layer(x)
        return x
