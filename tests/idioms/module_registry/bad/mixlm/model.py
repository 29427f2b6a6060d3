"""Blocks whose mixer and MLP classes are looked up by name in registries, with the names'
defaults and keyword dicts forwarded to the constructors."""
import math

import torch.nn as nn

from mixlm import layers  # noqa: F401  (fills the registries)
from mixlm.registry import feedforwards, mixers


class Block(nn.Module):
    def __init__(self, width, mixer="causal_attention", feedforward="gelu_mlp", mixer_kwargs=None):
        super().__init__()
        self.pre_mix = nn.LayerNorm(width)
        self.mix = mixers.get(mixer)(width=width, **(mixer_kwargs or {}))
        self.pre_ff = nn.LayerNorm(width)
        self.ff = feedforwards.get(feedforward)(**{"width": width, "ratio": 4})

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
                writer = name.endswith("mix.proj.weight")
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layers) if writer else 0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x)
