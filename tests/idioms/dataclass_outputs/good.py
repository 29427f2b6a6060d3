"""Sub-layers add their own residual and hand back a dataclass (`LayerOutput(hidden=...,
scores=...)`), read back by position or field; the blocks fill a ModuleList by `append` and call
it by index. The writers get the GPT-2 depth factor."""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class LayerOutput:
    hidden: torch.Tensor | None = None
    scores: torch.Tensor | None = None


class Heads(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.combine = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = (q @ k.transpose(-1, -2)).softmax(-1)
        return LayerOutput(hidden=self.combine(scores @ v), scores=scores)


class AttentionSublayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.heads = Heads(width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        result = self.heads(self.norm(x))
        x = x + result[0]
        return LayerOutput(hidden=x, scores=result.scores)


class MlpSublayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.grow = nn.Linear(width, 4 * width)
        self.shrink = nn.Linear(4 * width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + self.shrink(torch.relu(self.grow(self.norm(x))))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.sublayers = nn.ModuleList()
        self.sublayers.append(AttentionSublayer(width))
        self.sublayers.append(MlpSublayer(width))

    def forward(self, x):
        attended = self.sublayers[0](x)
        x = self.sublayers[1](attended.hidden)
        return LayerOutput(hidden=x, scores=attended.scores)


class Model(nn.Module):
    def __init__(self, width=128, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for name, param in self.named_parameters():
            if name.endswith(("combine.weight", "shrink.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)[0]
        return x
