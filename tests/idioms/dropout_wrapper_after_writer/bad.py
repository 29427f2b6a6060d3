"""A pair-feature trunk whose update ends in `nn.Sequential(Linear, RowDropout)`: RowDropout
holds an `nn.Dropout` and no parameters, and hands back its input (whole-row dropout in
training). The Linear before it writes into the stream, with no depth factor; the `proj` that
feeds the update is no writer."""

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
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.emit = nn.Sequential(
            nn.Linear(hidden, dim),  # expect: INI001
            RowDropout(0.25, rows=True),
        )

    def forward(self, pair):
        return self.emit(self.act(self.proj(self.norm(pair))))


class PairTrunk(nn.Module):
    def __init__(self, dim=64, hidden=128, depth=16):
        super().__init__()
        self.updates = nn.ModuleList([PairUpdate(dim, hidden) for _ in range(depth)])

    def forward(self, pair):
        for update in self.updates:
            pair = update(pair) + pair
        return pair
