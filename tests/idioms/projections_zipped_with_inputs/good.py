"""The same attention (projections applied in a comprehension over `zip(self.projections,
(query, key, value))`), its writers given GPT-2's depth-scaled init."""
import math

import torch
import torch.nn as nn


class MultiHeaded(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.projections = nn.ModuleList([nn.Linear(width, width) for _ in range(3)])
        self.merge_heads = nn.Linear(width, width)

    def forward(self, query, key, value, mask=None):
        b, n, d = query.shape
        query, key, value = [
            proj(t).view(b, n, self.heads, -1).transpose(1, 2)
            for proj, t in zip(self.projections, (query, key, value))
        ]
        scores = torch.softmax(query @ key.transpose(-2, -1), dim=-1)
        out = (scores @ value).transpose(1, 2).reshape(b, n, d)
        return self.merge_heads(out)


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = MultiHeaded(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h)
        x = x + self.down(torch.relu(self.up(self.norm2(x))))
        return x


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(depth)])
        for block in self.blocks:
            nn.init.normal_(block.attn.merge_heads.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.down.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
