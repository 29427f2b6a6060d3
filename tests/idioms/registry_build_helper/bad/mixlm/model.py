"""Layers built by a registry helper from copies of annotated default dicts."""
import copy
import math

import torch.nn as nn

from mixlm import layers  # noqa: F401  (fills the registries)
from mixlm.registry import build_from, feedforwards, mixers

MIXER_DEFAULTS: dict = {"name": "causal_attention", "heads": 4}
FEEDFORWARD_DEFAULTS: dict = {"name": "gelu_mlp"}


class Block(nn.Module):
    def __init__(self, width, mixer_config=None, feedforward_config=None):
        super().__init__()
        mixer_config = mixer_config or copy.deepcopy(MIXER_DEFAULTS)
        ff_config = copy.deepcopy(feedforward_config or FEEDFORWARD_DEFAULTS)
        ff_config["ratio"] = 4
        self.pre_mix = nn.LayerNorm(width)
        self.mix = build_from(mixers, mixer_config["name"], {"width": width, "heads": mixer_config["heads"]})
        self.pre_ff = nn.LayerNorm(width)
        self.ff = build_from(feedforwards, ff_config.pop("name"), {"width": width, **ff_config})

    def forward(self, x):
        x = x + self.mix(self.pre_mix(x))
        return x + self.ff(self.pre_ff(x))


class MixLM(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(width)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                writer = name.endswith("ff.contract.weight")
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layers) if writer else 0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x)
