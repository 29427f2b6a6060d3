"""A composite Hugging Face config leaves its text part None; `PreTrainedConfig.__post_init__`
builds it from the class `sub_configs_defaults` maps the field to, with that class's defaults.
The model reads depth and widths from that sub-config; the writers get no depth factor."""

import math

import torch.nn as nn
import torch.nn.functional as F
from huggingface_hub.dataclasses import strict
from transformers import PreTrainedConfig, PreTrainedModel


@strict
class TinyTextConfig(PreTrainedConfig):
    width: int = 128
    depth: int = 6
    init_std: float = 0.02
    scale_writers: bool = False


@strict
class TinyConfig(PreTrainedConfig):
    sub_configs_defaults = {"text_config": TinyTextConfig}
    text_config: dict | PreTrainedConfig | None = None


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm_a = nn.LayerNorm(config.width)
        self.mix = nn.Linear(config.width, config.width)
        self.mix_out = nn.Linear(config.width, config.width)  # expect: INI001
        self.norm_b = nn.LayerNorm(config.width)
        self.grow = nn.Linear(config.width, 4 * config.width)
        self.shrink = nn.Linear(4 * config.width, config.width)  # expect: INI001

    def forward(self, x):
        x = x + self.mix_out(F.relu(self.mix(self.norm_a(x))))
        return x + self.shrink(F.gelu(self.grow(self.norm_b(x))))


class TinyModel(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config: TinyConfig):
        super().__init__(config)
        text = config.text_config
        self.embed = nn.Embedding(1000, text.width)
        self.blocks = nn.ModuleList([Block(text) for _ in range(text.depth)])
        self.post_init()

    def _init_weights(self, module):
        text = self.config.text_config
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=text.init_std)
        if isinstance(module, Block) and text.scale_writers:
            for writer in (module.mix_out, module.shrink):
                nn.init.normal_(writer.weight, std=text.init_std / math.sqrt(2 * text.depth))

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
