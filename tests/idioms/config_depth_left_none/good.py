"""The config's sizes default to None: presets (or the caller) fill them before the model is
built. The writers are depth-scaled by the preset's depth."""
import math
from dataclasses import dataclass

import torch.nn as nn
import torch.nn.functional as F

PRESETS = {"small": {"d_model": 256, "n_layers": 8}, "base": {"d_model": 768, "n_layers": 12}}


@dataclass
class Config:
    preset: str = "small"
    d_model: int | None = None
    n_layers: int | None = None
    init_std: float = 0.02

    @classmethod
    def from_preset(cls, name: str) -> "Config":
        return cls(preset=name, **PRESETS[name])


def check_width(dim):
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise ValueError(f"bad width {dim!r}")


class Block(nn.Module):
    def __init__(self, dim, std, n_layers):
        super().__init__()
        check_width(dim)
        self.norm_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.out = nn.Linear(4 * dim, dim)
        for linear in (self.qkv, self.fc):
            nn.init.normal_(linear.weight, std=std)
        for linear in (self.proj, self.out):
            nn.init.normal_(linear.weight, std=std / math.sqrt(2 * n_layers))

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.out(F.gelu(self.fc(self.norm_2(x))))


class Model(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.embed = nn.Embedding(1000, cfg.d_model)
        layers = []
        for _ in range(cfg.n_layers):
            layers.append(Block(cfg.d_model, cfg.init_std, cfg.n_layers))
        self.layers = nn.ModuleList(layers)

    def forward(self, idx):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x)
        return x
