"""The owner walks a slice of its block list: the first blocks are skipped when their output is
cached (`self.blocks[start:]`), or run in two passes split at an exit layer. A slice of a
ModuleList is a ModuleList of the same blocks, so each slice walked is the stack itself. The
writers keep PyTorch's default Linear init."""

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, h):
        return self.out(self.mix(self.norm(h)).relu())


class CachedStack(nn.Module):
    def __init__(self, width=256, n_blocks=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_blocks)])

    def forward(self, h, start=0):
        for block in self.blocks[start:]:
            h = h + block(h)
        return h


class Pair(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.attn_out = nn.Linear(width, width)  # expect: INI001
        self.ff_norm = nn.LayerNorm(width)
        self.ff_out = nn.Linear(width, width)  # expect: INI001

    def forward(self, h):
        return self.attn_out(self.attn_norm(h)), self.ff_out(self.ff_norm(h))


class EarlyExitStack(nn.Module):
    def __init__(self, width=128, n_layers=6, exit_at=None):
        super().__init__()
        self.exit_at = exit_at
        self.layers = nn.ModuleList([Pair(width) for _ in range(n_layers)])

    def forward(self, h, resume=False):
        layers = self.layers
        if resume:
            done, layers = layers[: self.exit_at], layers[self.exit_at :]
            for layer in done:
                h = h + layer.attn_out(layer.attn_norm(h))
                h = h + layer.ff_out(layer.ff_norm(h))
        for layer in layers:
            h = h + layer.attn_out(layer.attn_norm(h))
            h = h + layer.ff_out(layer.ff_norm(h))
        return h
