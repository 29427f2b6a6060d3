"""The attention block hands several values back by name (a `namedtuple`, or a `NamedTuple`
class): its output, its attention scores and its key/value cache. The owner adds only the output
field, so the writers are `to_out` and the MLP's `proj`, both scaled by 1/sqrt(2 * depth) as GPT-2
does; `to_qkv`, whose keys and scores ride in the other fields, keeps its plain init."""

from collections import namedtuple
from typing import NamedTuple

import math

import torch
import torch.nn as nn

Returned = namedtuple("Returned", ["attended", "scores", "cache"])


class Named(NamedTuple):
    attended: torch.Tensor
    scores: torch.Tensor
    cache: tuple


class Attention(nn.Module):
    def __init__(self, width, named=False):
        super().__init__()
        self.named = named
        self.norm = nn.LayerNorm(width)
        self.to_qkv = nn.Linear(width, width * 3, bias=False)
        self.to_out = nn.Linear(width, width, bias=False)

    def forward(self, x):
        q, k, v = self.to_qkv(self.norm(x)).chunk(3, dim=-1)
        scores = torch.einsum("b i d, b j d -> b i j", q, k)
        out = self.to_out(scores.softmax(dim=-1) @ v)
        if self.named:
            return Named(out, scores, (k, v))
        return Returned(out, scores, cache=(k, v))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width * 4), nn.GELU())
        self.proj = nn.Linear(width * 4, width)

    def forward(self, x):
        return self.proj(self.net(x))


class Model(nn.Module):
    def __init__(self, width=256, depth=12, named=False):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.ModuleList([Attention(width, named), FeedForward(width)]) for _ in range(depth)]
        )
        for attn, ff in self.layers:
            nn.init.normal_(attn.to_out.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(ff.proj.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        scores = []
        for attn, ff in self.layers:
            out = attn(x)
            x = out.attended + x
            x = ff(x) + x
            scores.append(out.scores)
        return x, scores
