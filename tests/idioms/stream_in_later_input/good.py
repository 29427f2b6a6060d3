"""A latent resampler: each attention layer is handed the image features first and the latent
stream second, normalises each with its own norm, and the owner adds its output into the
latents. Pre-norm on the latent stream; the writers stay at PyTorch's default init."""
import torch
import torch.nn as nn
from headtools import to_heads_all, from_heads


class LatentAttention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.ln_feats = nn.LayerNorm(dim)
        self.ln_lat = nn.LayerNorm(dim)
        self.q = nn.Linear(dim, dim, bias=False)
        self.kv = nn.Linear(dim, 2 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, feats, lat):
        feats = self.ln_feats(feats)
        lat = self.ln_lat(lat)
        q = self.q(lat)
        k, v = self.kv(torch.cat((feats, lat), dim=1)).chunk(2, dim=-1)
        q, k, v = to_heads_all((q, k, v), self.heads)
        weights = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        return self.out(from_heads(weights @ v))


def mlp(dim):
    return nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))


class Resampler(nn.Module):
    def __init__(self, dim=256, depth=4, n_latents=32):
        super().__init__()
        self.latents = nn.Parameter(torch.randn(n_latents, dim))
        self.layers = nn.ModuleList([nn.ModuleList([LatentAttention(dim), mlp(dim)]) for _ in range(depth)])
        self.ln_out = nn.LayerNorm(dim)
        for attn, ff in self.layers:
            nn.init.zeros_(attn.out.weight)
            nn.init.zeros_(ff[3].weight)

    def forward(self, feats):
        lat = self.latents.expand(feats.shape[0], -1, -1)
        for attn, ff in self.layers:
            lat = attn(feats, lat) + lat
            lat = ff(lat) + lat
        return self.ln_out(lat)
