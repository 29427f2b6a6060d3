"""The backbone, in a folder without `__init__.py`, imports the sublayers by the distribution's
absolute name (`from speech.model.layers import ...`), as the installed package is imported."""

import torch.nn as nn

from speech.model.layers import FeedForward, SelfAttention


class Flat(nn.Module):
    def __init__(self, width=256, depth=8):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.ModuleList([nn.LayerNorm(width), SelfAttention(width), nn.LayerNorm(width), FeedForward(width)])
            for _ in range(depth)
        )

    def forward(self, x):
        for attn_norm, attn, ff_norm, ff in self.layers:
            x = attn(attn_norm(x)) + x
            x = ff(ff_norm(x)) + x
        return x
