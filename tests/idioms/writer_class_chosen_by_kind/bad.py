"""A block whose config picks its feed-forward from two classes, each ending in a `proj` writer.
The config is handed in unseen, so either class may be built; the model's init scales the writer
only where it meets the plain class (`isinstance(m, PlainFeedForward)`): the gated class's writer
keeps the plain std 0.02."""

import math

import torch.nn as nn
import torch.nn.functional as F


class MixerConfig:
    def __init__(self, width=128, depth=6, ff_kind="gated"):
        self.width = width
        self.depth = depth
        self.ff_kind = ff_kind


class PlainFeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.expand = nn.Linear(cfg.width, 4 * cfg.width)
        self.proj = nn.Linear(4 * cfg.width, cfg.width)

    def forward(self, h):
        return self.proj(F.gelu(self.expand(h)))


class SwishGatedFeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gate = nn.Linear(cfg.width, 3 * cfg.width)
        self.value = nn.Linear(cfg.width, 3 * cfg.width)
        self.proj = nn.Linear(3 * cfg.width, cfg.width)  # expect: INI001

    def forward(self, h):
        return self.proj(F.silu(self.gate(h)) * self.value(h))


class MixerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.pre = nn.LayerNorm(cfg.width)
        if cfg.ff_kind == "plain":
            self.ff = PlainFeedForward(cfg)
        elif cfg.ff_kind == "gated":
            self.ff = SwishGatedFeedForward(cfg)
        else:
            raise ValueError(f"unknown ff_kind {cfg.ff_kind}")

    def forward(self, h):
        return h + self.ff(self.pre(h))


class Mixer(nn.Module):
    def __init__(self, cfg, n_tokens=512):
        super().__init__()
        self.cfg = cfg
        self.tokens = nn.Embedding(n_tokens, cfg.width)
        self.blocks = nn.ModuleList(MixerBlock(cfg) for _ in range(cfg.depth))
        self.final = nn.LayerNorm(cfg.width)
        self.out = nn.Linear(cfg.width, n_tokens, bias=False)
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)
        if isinstance(m, PlainFeedForward):
            nn.init.normal_(m.proj.weight, std=0.02 / math.sqrt(2 * self.cfg.depth))

    def forward(self, ids):
        h = self.tokens(ids)
        for block in self.blocks:
            h = block(h)
        return self.out(self.final(h))
