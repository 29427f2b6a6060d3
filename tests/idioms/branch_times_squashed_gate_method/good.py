"""The same refiner with `emit` scaled by the number of updates: the gate squashed by
`.sigmoid()` is no writer, so nothing is left unscaled."""

import math

import torch.nn as nn


class GatedPairUpdate(nn.Module):
    def __init__(self, width, hidden, rounds):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mix = nn.Linear(width, hidden)
        self.gate = nn.Linear(width, width)
        self.emit_norm = nn.LayerNorm(hidden)
        self.emit = nn.Linear(hidden, width)
        nn.init.normal_(self.emit.weight, std=0.02 / math.sqrt(rounds))

    def forward(self, h):
        h = self.norm(h)
        mixed = self.emit_norm(self.mix(h))
        return self.emit(mixed) * self.gate(h).sigmoid()


class Refiner(nn.Module):
    def __init__(self, width=64, hidden=32, rounds=12):
        super().__init__()
        self.updates = nn.ModuleList([GatedPairUpdate(width, hidden, rounds) for _ in range(rounds)])

    def forward(self, h):
        for update in self.updates:
            h = update(h) + h
        return h
