"""Experts kept as stacked weight matrices, applied with einops' `einsum` imported by name (the
pattern last): the second matrix writes the residual stream, as it would through
`torch.einsum`, and it keeps 0.02 with no depth factor."""
import torch
import torch.nn as nn
from einops import einsum


class Experts(nn.Module):
    def __init__(self, dim, n_experts=4, hidden=256):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.route = nn.Linear(dim, n_experts, bias=False)
        self.w_in = nn.Parameter(torch.empty(n_experts, dim, hidden))
        self.w_out = nn.Parameter(torch.empty(n_experts, hidden, dim))  # expect: INI001
        nn.init.normal_(self.w_in, std=0.02)
        nn.init.normal_(self.w_out, std=0.02)

    def forward(self, x):
        h = self.norm(x)
        weights = self.route(h).softmax(dim=-1)
        inner = einsum(h, self.w_in, "b n d, e d f -> b n e f").relu()
        out = einsum(inner, self.w_out, "b n e f, e f d -> b n e d")
        return einsum(out, weights, "b n e d, b n e -> b n d")


class Model(nn.Module):
    def __init__(self, dim=128, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([Experts(dim) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return x
