"""The config is a plain class (not a dataclass) whose `__init__` stores its parameters, falling
back to a module-level dict of init settings; by default that dict leaves the writers unscaled."""

import copy
import math

import torch.nn as nn
import torch.nn.functional as F

INIT_SETTINGS = {"init_std": 0.02, "scale_writers": False}


class LMConfig:
    def __init__(self, width=256, depth=12, init_settings=None, **extra):
        self.width = width
        self.depth = depth
        self.init_settings = init_settings if init_settings is not None else copy.deepcopy(INIT_SETTINGS)
        self.extra = extra


class Block(nn.Module):
    def __init__(self, config: LMConfig):
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


class LM(nn.Module):
    def __init__(self, config: LMConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(1000, config.width)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.depth)])
        self._init_weights()

    def _init_weights(self):
        settings = self.config.init_settings
        nn.init.normal_(self.embed.weight, std=settings["init_std"])
        writer_std = settings["init_std"]
        if settings["scale_writers"]:
            writer_std = writer_std / math.sqrt(2 * self.config.depth)
        for block in self.blocks:
            for linear in (block.mix, block.grow):
                nn.init.normal_(linear.weight, std=settings["init_std"])
            for linear in (block.mix_out, block.shrink):
                nn.init.normal_(linear.weight, std=writer_std)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
