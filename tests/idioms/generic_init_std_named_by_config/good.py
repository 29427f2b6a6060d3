"""A Hugging Face model leaves its layers to transformers' generic `_init_weights`, which draws
them from the config's `init_std` when the config has no `initializer_range`; the model then
scales its writers by 1/sqrt(2 * depth)."""

import math

import torch.nn as nn
import torch.nn.functional as F
from transformers import PretrainedConfig, PreTrainedModel


class MixerConfig(PretrainedConfig):
    model_type = "mixer"

    def __init__(self, width=128, depth=6, init_std=0.02, **kwargs):
        self.width = width
        self.depth = depth
        self.init_std = init_std
        super().__init__(**kwargs)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm_a = nn.LayerNorm(config.width)
        self.mix = nn.Linear(config.width, config.width)
        self.mix_out = nn.Linear(config.width, config.width)
        self.norm_b = nn.LayerNorm(config.width)
        self.grow = nn.Linear(config.width, 4 * config.width)
        self.shrink = nn.Linear(4 * config.width, config.width)

    def forward(self, x):
        x = x + self.mix_out(F.relu(self.mix(self.norm_a(x))))
        return x + self.shrink(F.gelu(self.grow(self.norm_b(x))))


class MixerModel(PreTrainedModel):
    config_class = MixerConfig

    def __init__(self, config: MixerConfig):
        super().__init__(config)
        self.embed = nn.Embedding(1000, config.width)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.depth)])
        self.post_init()

    def _init_weights(self, module):
        super()._init_weights(module)
        if isinstance(module, Block):
            for writer in (module.mix_out, module.shrink):
                nn.init.normal_(writer.weight, std=self.config.init_std / math.sqrt(2 * self.config.depth))

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
