from dataclasses import dataclass

import torch.nn as nn

from . import blocks


@dataclass
class TinyConfig:
    vocab: int = 48
    width: int = 16
    depth: int = 3


class TinyLM(nn.Module):
    def __init__(self, cfg: TinyConfig):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab, cfg.width)
        self.stack = nn.ModuleList([blocks.Layer(cfg) for _ in range(cfg.depth)])
        self.norm = nn.LayerNorm(cfg.width)
        self.apply(self._init)

    def _init(self, module):
        # Every linear weight at 0.02, the residual writers (`out`, `down`) included: no depth factor.
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear):
            nn.init.zeros_(module.bias)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.stack:
            x = layer(x)
        return self.norm(x)
