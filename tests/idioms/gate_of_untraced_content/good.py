"""A triangle-multiplication-style pair update: the content goes through a chunked contraction
the reader cannot follow, then `emit`, and is multiplied by `sigmoid(gate(h))`. The sigmoid side
is a gate, never the residual writer, and the content's writer is unknown: no finding."""

import torch
import torch.nn as nn


def contract_in_chunks(left, right, chunk_size):
    chunks = []
    for start in range(0, left.shape[1], chunk_size):
        chunks.append(torch.einsum("bikd,bjkd->bijd", left[:, start : start + chunk_size], right))
    return torch.cat(chunks, dim=1)


class PairUpdate(nn.Module):
    def __init__(self, dim, chunk_size=64):
        super().__init__()
        self.chunk_size = chunk_size
        self.norm_in = nn.LayerNorm(dim)
        self.norm_mix = nn.LayerNorm(dim)
        self.bundle = nn.Linear(dim, 2 * dim, bias=False)
        self.emit = nn.Linear(dim, dim, bias=False)
        self.gate = nn.Linear(dim, dim, bias=False)
        nn.init.normal_(self.emit.weight, std=0.02)
        nn.init.normal_(self.gate.weight, std=0.02)

    def forward(self, pair):
        h = self.norm_in(pair)
        left, right = self.bundle(h).chunk(2, dim=-1)
        contracted = contract_in_chunks(left, right, self.chunk_size)
        mixed = self.emit(self.norm_mix(contracted))
        return mixed * torch.sigmoid(self.gate(h))


class PairLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.update = PairUpdate(dim)
        self.norm_ff = nn.LayerNorm(dim)
        self.ff_in = nn.Linear(dim, 4 * dim)
        self.ff_out = nn.Linear(4 * dim, dim)
        nn.init.zeros_(self.ff_out.weight)

    def forward(self, pair):
        pair = pair + self.update(pair)
        return pair + self.ff_out(torch.relu(self.ff_in(self.norm_ff(pair))))


class PairStack(nn.Module):
    def __init__(self, dim=64, depth=8):
        super().__init__()
        self.layers = nn.ModuleList([PairLayer(dim) for _ in range(depth)])

    def forward(self, pair):
        for layer in self.layers:
            pair = layer(pair)
        return pair
