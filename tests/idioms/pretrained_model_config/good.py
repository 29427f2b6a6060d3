"""A Hugging Face model reads its settings from `self.config`, which `PreTrainedModel.__init__`
stores; the config class's default scales the writers by 1/sqrt(2 * depth)."""

import math

import torch.nn as nn
import torch.nn.functional as F
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "tiny"

    def __init__(self, width=128, depth=6, init_std=0.02, scale_writers=True, **kwargs):
        self.width = width
        self.depth = depth
        self.init_std = init_std
        self.scale_writers = scale_writers
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


class TinyModel(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config: TinyConfig):
        super().__init__(config)
        self.embed = nn.Embedding(1000, config.width)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.depth)])
        self.post_init()

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=self.config.init_std)
            nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, std=self.config.init_std)
        if isinstance(module, Block) and self.config.scale_writers:
            for writer in (module.mix_out, module.shrink):
                nn.init.normal_(writer.weight, std=self.config.init_std / math.sqrt(2 * self.config.depth))

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
