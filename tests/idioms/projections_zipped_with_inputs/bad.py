"""Multi-head attention that applies its query, key and value projections in one comprehension
over `zip(self.projections, (query, key, value))` and ends in a linear of an unremarkable name.
Each item of the comprehension is a projection of the stream, so the attention output is a
branch of the stream and its last linear writes into it: default init, no depth factor."""
import torch
import torch.nn as nn


class MultiHeaded(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.projections = nn.ModuleList([nn.Linear(width, width) for _ in range(3)])
        self.merge_heads = nn.Linear(width, width)  # expect: INI001

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
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h)
        x = x + self.down(torch.relu(self.up(self.norm2(x))))
        return x


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, heads) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
