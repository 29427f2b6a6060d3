"""The fixed version of bad.py. The stages' LayerScale gain is made only where the setting is
positive (`... if ls_init_value > 0 else None`), and the model's default `ls_init_value=1e-6`
makes it: a gate that starts small, the deliberate scheme."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, ls_init_value=1e-6):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)
        self.gamma = nn.Parameter(ls_init_value * torch.ones(dim)) if ls_init_value > 0 else None

    def forward(self, x):
        return x + self.gamma * self.proj(self.norm(x))


class Stage(nn.Module):
    def __init__(self, dim, depth, ls_init_value=1.0):
        super().__init__()
        blocks = []
        for i in range(depth):
            blocks.append(Block(dim, ls_init_value=ls_init_value))
        self.blocks = nn.Sequential(*blocks)

    def forward(self, x):
        return self.blocks(x)


class Net(nn.Module):
    def __init__(self, dims=(24, 48, 88, 168), depths=(3, 3, 9, 3), ls_init_value=1e-6):
        super().__init__()
        self.feature_info = []
        stages = []
        for i in range(4):
            stages.append(Stage(dims[i], depths[i], ls_init_value=ls_init_value))
            self.feature_info += [dict(num_chs=dims[i], module=f"stages.{i}")]
        self.stages = nn.Sequential(*stages)
        self.head = nn.Linear(dims[-1], 10)
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)

    def forward(self, x):
        return self.head(self.stages(x))
