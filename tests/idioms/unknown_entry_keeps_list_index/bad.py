"""A block's parts in one list: a mixer from a library initlint cannot see, then a cross
attention and a feed-forward, each adding its branch itself. The unseen mixer still takes
index 0, so `parts[1]` is the cross attention; only the feed-forward's writer is scaled."""
import math

import torch.nn as nn
import torch.nn.functional as F
from mixers import build_mixer


class CrossAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.q = nn.Linear(width, width)
        self.kv = nn.Linear(width, 2 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x, context):
        k, v = self.kv(context).chunk(2, dim=-1)
        return x + self.out(F.scaled_dot_product_attention(self.q(self.norm(x)), k, v))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.out = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.out(F.gelu(self.up(self.norm(x))))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.parts = nn.ModuleList()
        self.parts.append(build_mixer(width))
        self.parts.append(CrossAttention(width))
        self.parts.append(FeedForward(width))

    def forward(self, x, context):
        x = self.parts[0](x)
        x = self.parts[1](x, context)
        return self.parts[-1](x)


class Decoder(nn.Module):
    def __init__(self, width=64, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        for block in self.blocks:
            nn.init.normal_(block.parts[2].out.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x, context):
        for block in self.blocks:
            x = block(x, context)
        return x
