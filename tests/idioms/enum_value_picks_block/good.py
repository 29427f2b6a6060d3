"""The MLP kind is an enum field of the config; the model hands its `.value` (a string) to a
helper that picks the block by it. Both writers are depth-scaled by name."""
import math
from dataclasses import dataclass
from enum import Enum

import torch.nn as nn
import torch.nn.functional as F


class MlpKind(str, Enum):
    GATED = "gated"
    PLAIN = "plain"


@dataclass
class Config:
    dim: int = 256
    n_layers: int = 8
    mlp: MlpKind = MlpKind.GATED


class GatedMlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, 4 * dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


def build_mlp(kind: str, dim: int) -> nn.Module:
    if kind == "gated":
        return GatedMlp(dim)
    if kind == "plain":
        return nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
    raise ValueError(kind)


class Block(nn.Module):
    def __init__(self, dim, mlp_kind):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out_proj = nn.Linear(dim, dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.mlp = build_mlp(mlp_kind, dim)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.out_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp(self.norm_2(x))


class Model(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.embed = nn.Embedding(1000, config.dim)
        self.layers = nn.ModuleList([Block(config.dim, config.mlp.value) for _ in range(config.n_layers)])
        self.apply(self._init_weights)
        for name, module in self.named_modules():
            if isinstance(module, nn.Linear) and name.endswith(("out_proj", "down")):
                module.weight.data.mul_(1.0 / math.sqrt(2.0 * len(self.layers)))

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=0.02)

    def forward(self, idx):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x)
        return x
