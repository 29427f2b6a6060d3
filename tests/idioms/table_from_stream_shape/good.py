"""A pre-norm block whose rotary table is made by a module handed the stream itself
(`pos = self.rotary(x)`): the module reads only `x`'s length and device, so the attention
branch it feeds still reads the normalised stream. Both writers are depth-scaled."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Rotary(nn.Module):
    def __init__(self, dim_head):
        super().__init__()
        self.register_buffer("freqs", 1.0 / 10000 ** (torch.arange(0, dim_head).float() / dim_head))

    def forward(self, x):
        t = torch.arange(x.shape[1], device=x.device).type_as(self.freqs)
        return torch.einsum("i,j->ij", t, self.freqs.to(x)).cos()


class Attention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x, pos=None):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if pos is not None:
            q, k = q * pos, k * pos
        out = F.scaled_dot_product_attention(q, k, v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.rotary = Rotary(dim // heads)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x):
        pos = self.rotary(x)
        x = x + self.attn(self.norm1(x), pos=pos)
        return x + self.ff(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, dim=256, depth=8, heads=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for block in self.blocks:
            nn.init.normal_(block.attn.to_out.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.ff[2].weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
