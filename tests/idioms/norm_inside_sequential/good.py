"""vit-pytorch-style branches that normalise their own input: the norm is the first layer of the MLP."""
import math

import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(dim),
            nn.Linear(dim, hidden_dim),
            nn.GELU(),
            nn.Linear(hidden_dim, dim),
        )

    def forward(self, x):
        return self.net(x)


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.to_qkv(self.norm(x)).chunk(3, dim=-1)
        return self.to_out(F.scaled_dot_product_attention(q, k, v))


class Block(nn.Module):
    def __init__(self, dim, mlp_dim):
        super().__init__()
        self.attn = Attention(dim)
        self.ff = FeedForward(dim, mlp_dim)

    def forward(self, x):
        x = x + self.attn(x)
        return x + self.ff(x)


class ViT(nn.Module):
    def __init__(self, dim=768, depth=12, mlp_dim=3072):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, mlp_dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        for block in self.blocks:
            nn.init.trunc_normal_(block.attn.to_qkv.weight, std=0.02)
            nn.init.trunc_normal_(block.attn.to_out.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.trunc_normal_(block.ff.net[1].weight, std=0.02)
            nn.init.trunc_normal_(block.ff.net[3].weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
