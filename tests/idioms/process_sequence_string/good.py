"""The fixed version of bad.py. The same process blocks, with the config's defaults
`pre = ""` and `post = "drn"`: each block adds its branch and then normalises the sum (post-norm,
as BERT), so the norm, not the writers' init, sets the scale of what the next block reads."""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Config:
    width: int = 256
    depth: int = 6
    pre: str = ""
    post: str = "drn"


class Process(nn.Module):
    def __init__(self, steps: str, width: int):
        super().__init__()
        self.steps = steps
        self.norm = nn.LayerNorm(width) if "n" in steps else None
        self.drop = nn.Dropout(0.1)

    def forward(self, x, prev=None):
        if not self.steps:
            return x
        for step in self.steps:
            if step == "r":
                x = x + prev
            elif step == "n":
                x = self.norm(x)
            elif step == "d":
                x = self.drop(x)
            else:
                raise ValueError(step)
        return x


class Block(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.pre_attn, self.post_attn = Process(cfg.pre, cfg.width), Process(cfg.post, cfg.width)
        self.attn = nn.MultiheadAttention(cfg.width, 4)
        self.pre_mlp, self.post_mlp = Process(cfg.pre, cfg.width), Process(cfg.post, cfg.width)
        self.up = nn.Linear(cfg.width, 4 * cfg.width)
        self.down = nn.Linear(4 * cfg.width, cfg.width)

    def forward(self, x):
        h = self.pre_attn(x)
        x = self.post_attn(self.attn(h, h, h)[0], x)
        return self.post_mlp(self.down(torch.relu(self.up(self.pre_mlp(x)))), x)


class Encoder(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg.depth)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
