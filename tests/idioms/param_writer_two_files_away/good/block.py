import torch.nn as nn

from layers import Attention, FeedForward


class Block(nn.Module):
    def __init__(self, dim, heads, depth):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, depth)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = FeedForward(dim, 4 * dim, depth)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.ff(self.norm2(x))
