"""The model's classes derive from a generic base subscripted with their state type
(`Cached[LayerState]`), which at run time is the base itself: an `nn.Module`. The layers'
writers keep PyTorch's default init."""

import typing as tp
from dataclasses import dataclass

from torch import nn

S = tp.TypeVar("S")


class Cached(nn.Module, tp.Generic[S]):
    def __init__(self):
        super().__init__()
        self.state: S | None = None


@dataclass
class LayerState:
    offset: int = 0


class Layer(Cached[LayerState]):
    def __init__(self, width, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.out((q @ k.transpose(-2, -1)).softmax(-1) @ v)
        return x + self.down(self.up(self.norm2(x)).relu())


class Stack(Cached[None]):
    def __init__(self, width, num_layers, hidden=1024):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, hidden) for _ in range(num_layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
