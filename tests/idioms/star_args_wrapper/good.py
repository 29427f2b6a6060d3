"""Each branch sits in a wrapper whose `forward(self, *args, **kwargs)` hands every argument on to
the module it wraps (activation checkpointing, RNG bookkeeping): the stream is the first of them.
The writers get the GPT-2 depth factor."""

import math

import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class Checkpointed(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, *args, use_checkpoint=False, **kwargs):
        if use_checkpoint:
            return checkpoint(self.net, *args, use_reentrant=False, **kwargs)
        return self.net(*args, **kwargs)


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x, mask=None):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(self.norm(x))))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn = Checkpointed(Attention(width))
        self.mlp = Checkpointed(MLP(width))

    def forward(self, x, mask=None):
        x = x + self.attn(x, mask=mask, use_checkpoint=self.training)
        return x + self.mlp(x)


class Model(nn.Module):
    def __init__(self, width=128, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for block in self.blocks:
            nn.init.normal_(block.attn.net.proj.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.mlp.net.down.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x, mask=None):
        for block in self.blocks:
            x = block(x, mask)
        return x
