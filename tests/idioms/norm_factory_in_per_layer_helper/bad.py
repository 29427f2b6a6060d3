"""A helper run once per layer builds each block, its norm made by a factory that dispatches on
the norm config's class; the config does not say which class it holds, so each layer's norm is
one of the two, a norm either way: the blocks are pre-norm. Nothing scales the writers."""
from dataclasses import dataclass

import torch.nn as nn


@dataclass
class RMSNormSettings:
    width: int


@dataclass
class LayerNormSettings:
    width: int
    eps: float = 1e-5


@dataclass
class Settings:
    norm: RMSNormSettings | LayerNormSettings
    width: int = 512
    depth: int = 8


def make_norm(settings: RMSNormSettings | LayerNormSettings) -> nn.Module:
    match settings:
        case RMSNormSettings():
            return nn.RMSNorm(settings.width)
        case LayerNormSettings():
            return nn.LayerNorm(settings.width, eps=settings.eps)
        case _:
            raise TypeError(type(settings))


class Block(nn.Module):
    def __init__(self, width, norm):
        super().__init__()
        self.norm = norm
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.down(self.up(self.norm(x)).relu())


class Model(nn.Module):
    def __init__(self, settings: Settings):
        super().__init__()
        self.blocks = nn.ModuleList([self.block(settings) for _ in range(settings.depth)])

    def block(self, settings: Settings) -> nn.Module:
        return Block(settings.width, make_norm(settings.norm))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
