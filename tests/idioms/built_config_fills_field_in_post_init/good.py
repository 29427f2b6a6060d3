"""A decoder whose MoE branch builds its own config with a call: the dataclass declares the expert
count as a placeholder (0) that `__post_init__` always overwrites (`alpha * n_experts`). The
experts the branch runs are that many, so its up projection reads their sum and writes the
stream; it is scaled by the number of residual adds (one per block)."""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ExpertsConfig:
    width: int
    n_experts: int = 4
    alpha: int = 2
    # Derived in __post_init__.
    n_routed: int = 0
    latent: int = 0

    def __post_init__(self):
        if self.width % self.alpha != 0:
            raise ValueError("alpha must divide width")
        self.n_routed = self.alpha * self.n_experts
        self.latent = self.width // self.alpha


class Experts(nn.Module):
    def __init__(self, config: ExpertsConfig):
        super().__init__()
        self.down = nn.Linear(config.width, config.latent, bias=False)
        self.up = nn.Linear(config.latent, config.width, bias=False)
        self.experts = nn.ModuleList(nn.Linear(config.latent, config.latent) for _ in range(config.n_routed))

    def forward(self, x):
        z = self.down(x)
        mixed = torch.zeros_like(z)
        for expert in self.experts:
            mixed = mixed + F.gelu(expert(z))
        return self.up(mixed)


class Block(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.moe_norm = nn.LayerNorm(width)
        self.moe = Experts(ExpertsConfig(width=width))

    def forward(self, x):
        return x + self.moe(self.moe_norm(x))


class Decoder(nn.Module):
    def __init__(self, width: int = 256, n_layers: int = 8):
        super().__init__()
        self.n_layers = n_layers
        self.blocks = nn.ModuleList(Block(width) for _ in range(n_layers))
        self.norm = nn.LayerNorm(width)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, Experts):
            nn.init.normal_(module.up.weight, std=0.02 / math.sqrt(self.n_layers))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
