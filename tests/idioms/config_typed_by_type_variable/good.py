"""A generic base builds the stack from a config whose type is a type variable; the concrete
model binds it to its config class (`Base[Settings]`), whose defaults build pre-norm blocks.
The writer's init is scaled by the depth it is handed."""
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
    def __init__(self, width, depth):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.normal_(self.down.weight, std=0.02 / depth**0.5)

    def forward(self, x):
        return self.down(self.up(x).relu())


class Block(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.ff = Feedforward(width, depth)

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
            return [Block(settings.width, settings.depth) for _ in range(settings.depth)]
        elif settings.placement == "post":
            return [PostBlock(settings.width, settings.depth) for _ in range(settings.depth)]
