"""Norms and MLPs kept in two lists and read by one counter, but the norm comes after the add,
`x = self.norms[j](x + self.mlps[j](x))`: post-norm, so no depth factor is needed."""
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.up = nn.Linear(d, hidden)
        self.act = nn.GELU()
        self.down = nn.Linear(hidden, d)

    def forward(self, x):
        return self.down(self.act(self.up(x)))


class MixerStack(nn.Module):
    def __init__(self, d=96, n_blocks=12):
        super().__init__()
        self.norms = nn.ModuleList([nn.LayerNorm(d) for _ in range(n_blocks)])
        self.mlps = nn.ModuleList([Mlp(d, 4 * d) for _ in range(n_blocks)])
        for mlp in self.mlps:
            nn.init.normal_(mlp.up.weight, std=0.02)
            nn.init.normal_(mlp.down.weight, std=0.02)

    def forward(self, x):
        for j in range(len(self.mlps)):
            x = self.norms[j](x + self.mlps[j](x))
        return x
