import torch.nn as nn

from .layers import *


class Layer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.norm_a = nn.LayerNorm(cfg.width)
        self.mix = MixHead(cfg)
        self.norm_b = nn.LayerNorm(cfg.width)
        self.ff = FeedForward(cfg)

    def forward(self, x):
        x = x + self.mix(self.norm_a(x))
        return x + self.ff(self.norm_b(x))
