"""Layers as [attention, feed-forward] pairs, walked with `enumerate(zip(...))` beside per-layer
LayerScale gains (a deliberate alternative): what is zipped beside the layers gates the branches."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.to_qkv(self.norm(x)).chunk(3, dim=-1)
        return self.to_out(F.scaled_dot_product_attention(q, k, v))


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(dim),
            nn.Linear(dim, 4 * dim),
            nn.GELU(),
            nn.Linear(4 * dim, dim),
        )

    def forward(self, x):
        return self.net(x)


class Encoder(nn.Module):
    def __init__(self, dim=384, depth=6, drop=0.1):
        super().__init__()
        self.drops = tuple(drop * i / depth for i in range(depth))
        self.layers = nn.ModuleList([nn.ModuleList([SelfAttention(dim), MLP(dim)]) for _ in range(depth)])
        self.attn_gains = nn.ParameterList([nn.Parameter(torch.full((dim,), 1e-4)) for _ in range(depth)])
        self.mlp_gains = nn.ParameterList([nn.Parameter(torch.full((dim,), 1e-4)) for _ in range(depth)])

    def forward(self, x):
        for ind, ((attn, mlp), p, g1, g2) in enumerate(zip(self.layers, self.drops, self.attn_gains, self.mlp_gains)):
            x = x + F.dropout(attn(x), p) * g1
            x = x + F.dropout(mlp(x), p) * g2
        return x
