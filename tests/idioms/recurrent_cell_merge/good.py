"""Each branch output is merged into the state by a recurrent cell written out by hand, not
added: the cell runs its layers through `F.linear` on copies of their weights, and the state
that comes out is a gated mix of the old state and a squashed candidate. No branch layer writes
into an additive residual stream, so none needs a depth factor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def _dense(layer, t):
    return F.linear(t, layer.weight.clone(), layer.bias.clone())


class MergeCell(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.keep_from_input = nn.Linear(width, width)
        self.keep_from_state = nn.Linear(width, width)
        self.candidate = nn.Linear(width, width)

    def forward(self, update, state):
        keep = torch.sigmoid(_dense(self.keep_from_input, update) + _dense(self.keep_from_state, state))
        fresh = torch.tanh(_dense(self.candidate, update))
        return keep * state + (1 - keep) * fresh


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.expand = nn.Linear(width, 4 * width)
        self.contract = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.contract(F.gelu(self.expand(self.norm(x))))


class CellMerged(nn.Module):
    def __init__(self, width, branch):
        super().__init__()
        self.width = width
        self.branch = branch
        self.cell = MergeCell(width)

    def forward(self, x):
        out = self.branch(x)
        merged = self.cell(out.reshape(-1, self.width), x.reshape(-1, self.width))
        return merged.reshape(x.shape)


class Net(nn.Module):
    def __init__(self, vocab=256, width=64, depth=8):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.stages = nn.ModuleList([CellMerged(width, FeedForward(width)) for _ in range(depth)])
        self.readout = nn.Linear(width, vocab)

    def forward(self, ids):
        x = self.tokens(ids)
        for stage in self.stages:
            x = stage(x)
        return self.readout(x)
