"""A pre-norm block that imports its attention where it builds it (no top-level import)."""
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        from .attention import CausalAttention

        self.norm_1 = nn.LayerNorm(width)
        self.attn = CausalAttention(width)
        self.norm_2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))  # expect: INI001

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.mlp(self.norm_2(x))
