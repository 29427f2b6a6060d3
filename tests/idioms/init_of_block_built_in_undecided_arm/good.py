"""The model builds its stack in either arm of a test on a config it cannot see;
each block initialises its own layers in `__init__`, the writers scaled by the
depth it is given, whichever arm runs."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width, depth, qkv_bias=True):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=qkv_bias)
        self.attn_out = nn.Linear(width, width)
        self.mlp_norm = nn.LayerNorm(width)
        self.mlp_in = nn.Linear(width, 4 * width)
        self.mlp_out = nn.Linear(4 * width, width)
        self.reset_parameters(depth)

    def reset_parameters(self, depth):
        for layer in (self.qkv, self.mlp_in):
            nn.init.normal_(layer.weight, std=0.02)
        for layer in (self.attn_out, self.mlp_out):
            nn.init.normal_(layer.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp_out(F.gelu(self.mlp_in(self.mlp_norm(x))))


class Net(nn.Module):
    def __init__(self, options):
        super().__init__()
        self.options = options
        if options.variant == "large":
            self.qkv_bias = False
            self.build_stack()
        else:
            self.qkv_bias = True
            self.build_stack()

    def build_stack(self):
        width, depth = self.options.width, self.options.depth
        self.blocks = nn.ModuleList([Block(width, depth, qkv_bias=self.qkv_bias) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
