"""A generic base builds the stack from a config whose type is a type variable; the concrete
model binds it to its config class (`Base[Settings]`), whose defaults build pre-norm blocks.
Nothing scales the residual writers."""
from dataclasses import dataclass
from typing import Generic, TypeVar

import torch.nn as nn

SettingsT = TypeVar("SettingsT")


@dataclass
class Settings:
    width: int = 512
    depth: int = 8
    placement: str = "pre"


class Feedforward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(self.up(x).relu())


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.ff = Feedforward(width)

    def forward(self, x):
        return x + self.ff(self.norm(x))


class PostBlock(Block):
    def forward(self, x):
        return self.norm(x + self.ff(x))


class StackBase(nn.Module, Generic[SettingsT]):
    def __init__(self, settings: SettingsT):
        super().__init__()
        self.blocks = nn.ModuleList(self.build(settings))

    def build(self, settings: SettingsT) -> list[nn.Module]:
        raise NotImplementedError

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Stack(StackBase[Settings]):
    def build(self, settings: Settings) -> list[nn.Module]:
        if settings.placement == "pre":
            return [Block(settings.width) for _ in range(settings.depth)]
        elif settings.placement == "post":
            return [PostBlock(settings.width) for _ in range(settings.depth)]
