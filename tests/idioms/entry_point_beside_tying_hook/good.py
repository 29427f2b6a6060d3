"""A model with two methods its user calls after building it: `post_init()` only
ties the head to the embedding, `reset_parameters()` is the init. Nothing in the
file calls either; the init scales both writers by the depth."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attn_out = nn.Linear(width, width)
        self.mlp_norm = nn.LayerNorm(width)
        self.mlp_in = nn.Linear(width, 4 * width)
        self.mlp_out = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp_out(F.gelu(self.mlp_in(self.mlp_norm(x))))


class Decoder(nn.Module):
    def __init__(self, vocab=1000, width=256, depth=12, tie_head=True):
        super().__init__()
        self.depth = depth
        self.tie_head = tie_head
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.head = nn.Linear(width, vocab, bias=False)

    def post_init(self):
        if self.tie_head:
            self.head.weight = self.embed.weight

    def reset_parameters(self):
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
        for block in self.blocks:
            for writer in (block.attn_out, block.mlp_out):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * self.depth))

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(x)
