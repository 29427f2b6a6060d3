"""A pre-norm block whose feed-forward comes from the factory, chosen by a default."""
import torch.nn as nn

from tiny.layers import build_ffn


class Block(nn.Module):
    def __init__(self, width, heads, ffn="swiglu"):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm_2 = nn.LayerNorm(width)
        self.ffn = build_ffn(ffn, width, 4 * width)

    def forward(self, x):
        h = self.norm_1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ffn(self.norm_2(x))
