"""The same trunk with the Linear before the row dropout scaled by the depth: RowDropout
hands its input on, so that Linear is the writer and it is scaled; nothing is reported."""

import math

import torch.nn as nn


class RowDropout(nn.Module):
    def __init__(self, prob, rows=False):
        super().__init__()
        self.dropout = nn.Dropout(prob)
        self.rows = rows

    def forward(self, t):
        if not self.rows:
            return self.dropout(t)
        batch, _, width, dim = t.shape
        keep = self.dropout(t.new_ones((batch, 1, width, dim)))
        return t * keep


class PairUpdate(nn.Module):
    def __init__(self, dim, hidden, depth):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.emit = nn.Sequential(nn.Linear(hidden, dim), RowDropout(0.25, rows=True))
        nn.init.normal_(self.emit[0].weight, std=0.02 / math.sqrt(depth))

    def forward(self, pair):
        return self.emit(self.act(self.proj(self.norm(pair))))


class PairTrunk(nn.Module):
    def __init__(self, dim=64, hidden=128, depth=16):
        super().__init__()
        self.updates = nn.ModuleList([PairUpdate(dim, hidden, depth) for _ in range(depth)])

    def forward(self, pair):
        for update in self.updates:
            pair = update(pair) + pair
        return pair
