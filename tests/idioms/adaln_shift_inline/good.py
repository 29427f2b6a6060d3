"""Inline adaptive norms (`norm(x) * (1 + scale) + shift`, `gamma * norm(x) + beta`) feed
ungated branches; both stacks give the writers sqrt(2 * depth)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class AdaBlock(nn.Module):
    def __init__(self, d, cond_dim):
        super().__init__()
        self.modulation = nn.Linear(cond_dim, 4 * d)
        self.norm1 = nn.LayerNorm(d, elementwise_affine=False)
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.norm2 = nn.LayerNorm(d, elementwise_affine=False)
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x, c):
        shift1, scale1, shift2, scale2 = self.modulation(c)[:, None].chunk(4, dim=-1)
        h = self.norm1(x) * (1 + scale1) + shift1
        x = x + self.attn(h, h, h, need_weights=False)[0]
        h = self.norm2(x) * (1 + scale2) + shift2
        return x + self.proj(F.silu(self.fc(h)))


class Denoiser(nn.Module):
    def __init__(self, d=128, cond_dim=64, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([AdaBlock(d, cond_dim) for _ in range(depth)])
        for block in self.blocks:
            nn.init.normal_(block.attn.out_proj.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.proj.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x, c):
        for block in self.blocks:
            x = block(x, c)
        return x


class StyleLayer(nn.Module):
    def __init__(self, width, style_dim, tokens=16):
        super().__init__()
        self.norm_tokens = nn.LayerNorm(width)
        self.token_mix = nn.Linear(tokens, tokens)
        self.to_affine = nn.Linear(style_dim, 2 * width)
        self.norm = nn.LayerNorm(width)
        self.hidden = nn.Linear(width, 2 * width)
        self.out = nn.Linear(2 * width, width)

    def forward(self, x, style):
        x = x + self.token_mix(self.norm_tokens(x).transpose(1, 2)).transpose(1, 2)
        gamma, beta = self.to_affine(style).unsqueeze(1).chunk(2, dim=-1)
        h = gamma * self.norm(x) + beta
        return x + self.out(F.gelu(self.hidden(h)))


class StyleStack(nn.Module):
    def __init__(self, width=96, style_dim=32, n_layers=6):
        super().__init__()
        self.layers = nn.ModuleList([StyleLayer(width, style_dim) for _ in range(n_layers)])
        for layer in self.layers:
            nn.init.normal_(layer.token_mix.weight, std=0.02 / math.sqrt(2 * n_layers))
            nn.init.normal_(layer.out.weight, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, x, style):
        for layer in self.layers:
            x = layer(x, style)
        return x
