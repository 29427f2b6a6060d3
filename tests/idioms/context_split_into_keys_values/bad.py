"""Cross-attention whose keys and values are one projection of the context split in `forward`
(`k, v = self.to_kv(context).chunk(2, dim=-1)`): the parts are content, not gates, so the output
projection stays a residual writer of the pre-norm stream. (Guards the split of a block's own
modulation into gates, which must not take the context's projection for one.)"""
import torch
import torch.nn as nn


class CrossAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim)
        self.to_kv = nn.Linear(dim, 2 * dim)
        self.to_out = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x, context):
        x = self.norm(x)
        q = self.to_q(x)
        k, v = self.to_kv(context).chunk(2, dim=-1)
        attn = (q @ k.transpose(-1, -2)).softmax(dim=-1)
        out = attn @ v
        return self.to_out(out)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = CrossAttention(dim)
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))  # expect: INI001

    def forward(self, x, context):
        x = x + self.attn(x, context)
        return x + self.ff(x)


class Net(nn.Module):
    def __init__(self, dim=128, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x, context):
        for b in self.blocks:
            x = b(x, context)
        return x
