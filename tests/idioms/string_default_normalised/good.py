"""The MLP is picked by a string the factory normalises first (`key = kind.strip().lower()`):
the default config builds the gated MLP, whose down projection is depth-scaled. The plain MLP,
built only for another setting, is no writer of the default model."""
import math

import torch.nn as nn
import torch.nn.functional as F


class GatedMlp(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.gate_up = nn.Linear(dim, 8 * dim)
        self.down = nn.Linear(4 * dim, dim)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class PlainMlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


def build_mlp(kind, dim, depth):
    key = kind.strip().lower()
    if key in ("gelu", "plain"):
        return PlainMlp(dim)
    if key == "swiglu":
        return GatedMlp(dim, depth)
    raise ValueError(kind)


class Block(nn.Module):
    def __init__(self, dim, depth, mlp="SwiGLU"):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.mlp = build_mlp(mlp, dim, depth)
        nn.init.normal_(self.proj.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp(self.norm_2(x))


class Model(nn.Module):
    def __init__(self, dim=256, depth=12, mlp="SwiGLU"):
        super().__init__()
        self.embed = nn.Embedding(1000, dim)
        self.blocks = nn.ModuleList([Block(dim, depth, mlp) for _ in range(depth)])

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return x
