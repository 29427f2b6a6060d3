"""A pre-norm ViT whose blocks take their MLP from the layer file; no init code."""
import torch.nn as nn
import torch.nn.functional as F

from kit.layers import MLPBlock


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v)
        return self.proj(out.transpose(1, 2).reshape(b, n, c))


class Block(nn.Module):
    def __init__(self, width, heads, mlp_ratio=4.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = Attention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = MLPBlock(width, int(width * mlp_ratio))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    def __init__(self, width=384, heads=6, depth=12, patch=16):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, width, patch, stride=patch)
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2)
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
