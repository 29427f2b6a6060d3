"""A pre-norm block: `import tiny.layers` binds only `tiny`, the layers are named in full."""
import torch.nn as nn

import tiny.layers


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.attn = tiny.layers.SelfAttention(width)
        self.norm_2 = nn.LayerNorm(width)
        self.ffn = tiny.layers.FeedForward(width)

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.ffn(self.norm_2(x))
