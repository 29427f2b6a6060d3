"""A mixin's method named like an init that only sets attributes (`_init_backbone_settings`)
writes no weight: it is no init left for a trainer, so the writers' default init is reported."""
import torch.nn as nn


class FeatureMixin:
    def _init_backbone_settings(self, stages):
        self.out_features = [f"stage{i}" for i in range(stages)]
        self.channels = [64] * stages


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)  # expect: INI001
        self.norm2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        x = x + self.proj(self.norm1(x))
        return x + self.fc(self.norm2(x))


class Backbone(nn.Module, FeatureMixin):
    def __init__(self, dim=64, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
