"""One pre-norm block built from the sublayers next door."""
import torch.nn as nn

from tiny.layers import GatedMLP, SelfAttention


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_a = nn.LayerNorm(width)
        self.mixer = SelfAttention(width)
        self.norm_m = nn.LayerNorm(width)
        self.mlp = GatedMLP(width)

    def forward(self, x):
        x = x + self.mixer(self.norm_a(x))
        return x + self.mlp(self.norm_m(x))
