"""A point-cloud refiner whose pair update is gated the AlphaFold way: the contracted features
go through `emit`, and the result is multiplied by `self.gate(h).sigmoid()`. The gate, squashed
by a tensor method, only scales each entry by at most one: `emit` is the writer (default init,
no depth factor), not `gate`."""

import torch.nn as nn


class GatedPairUpdate(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mix = nn.Linear(width, hidden)
        self.gate = nn.Linear(width, width)
        self.emit_norm = nn.LayerNorm(hidden)
        self.emit = nn.Linear(hidden, width)  # expect: INI001

    def forward(self, h):
        h = self.norm(h)
        mixed = self.emit_norm(self.mix(h))
        return self.emit(mixed) * self.gate(h).sigmoid()


class Refiner(nn.Module):
    def __init__(self, width=64, hidden=32, rounds=12):
        super().__init__()
        self.updates = nn.ModuleList([GatedPairUpdate(width, hidden) for _ in range(rounds)])

    def forward(self, h):
        for update in self.updates:
            h = update(h) + h
        return h
