"""Attention as a list of single-head modules and an output projection; the model that
stacks it lives in model.py."""

import torch
import torch.nn as nn


class OneHead(nn.Module):
    def __init__(self, dim, size):
        super().__init__()
        self.q = nn.Linear(dim, size, bias=False)
        self.k = nn.Linear(dim, size, bias=False)
        self.v = nn.Linear(dim, size, bias=False)

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(-2, -1) * self.q.out_features**-0.5
        return scores.softmax(dim=-1) @ self.v(x)


class ManyHeads(nn.Module):
    def __init__(self, dim, n_head):
        super().__init__()
        self.heads = nn.ModuleList([OneHead(dim, dim // n_head) for _ in range(n_head)])
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        return self.out(torch.cat([head(x) for head in self.heads], dim=-1))
