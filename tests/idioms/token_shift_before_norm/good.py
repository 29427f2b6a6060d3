"""The token-shift stacks with their writers zero-initialised."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class HalfShift(nn.Module):
    def forward(self, x):
        keep, moved = x.chunk(2, dim=-1)
        moved = F.pad(moved, (0, 0, 1, -1), value=0.0)
        return torch.cat((keep, moved), dim=-1)


class ShiftMLP(nn.Module):
    def __init__(self, dim=256, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(
                HalfShift(),
                nn.LayerNorm(dim),
                nn.Linear(dim, 4 * dim),
                nn.GELU(),
                nn.Linear(4 * dim, dim),
            )
            for _ in range(depth)
        )
        for block in self.blocks:
            nn.init.zeros_(block[4].weight)

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return x


class Roll(nn.Module):
    def forward(self, h):
        return h.roll(1, dims=1)[:, :, : h.shape[-1]]


class MixerBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.shift = Roll()
        self.norm = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        nn.init.zeros_(self.mix.weight)

    def forward(self, h):
        return h + self.mix(self.norm(self.shift(h)))


class Mixer(nn.Module):
    def __init__(self, width=128, n_layer=6):
        super().__init__()
        self.layers = nn.ModuleList([MixerBlock(width) for _ in range(n_layer)])

    def forward(self, h):
        for layer in self.layers:
            h = layer(h)
        return h
