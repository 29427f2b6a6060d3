import math

import torch.nn as nn
from ...modeling_utils import PreTrainedModel


class Mixer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm = nn.LayerNorm(config.width)
        self.inp = nn.Linear(config.width, config.width)
        self.out = nn.Linear(config.width, config.width)

    def forward(self, x):
        return x + self.out(self.inp(self.norm(x)).tanh())


class MixerBase(PreTrainedModel):
    def _init_weights(self, module):
        PreTrainedModel._init_weights(self, module)
        if isinstance(module, Mixer):
            std = self.config.initializer_range / math.sqrt(self.config.depth)
            nn.init.normal_(module.out.weight, std=std)


class MixerStack(MixerBase):
    def __init__(self, config):
        super().__init__(config)
        self.mixers = nn.ModuleList([Mixer(config) for _ in range(config.depth)])
        self.post_init()

    def forward(self, x):
        for mixer in self.mixers:
            x = mixer(x)
        return x
