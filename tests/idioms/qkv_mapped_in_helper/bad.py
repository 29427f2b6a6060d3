"""Attention whose helper method normalises the input, projects it and hands back
`map(split_heads, (q, k, v))`, unpacked by `forward` as `q, k, v = self._project(x)`. Each item
is a projection of the stream, so the attention output is a branch and its output linear a
residual writer: PyTorch's default init, no depth factor."""
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(width)
        self.wq = nn.Linear(width, width)
        self.wk = nn.Linear(width, width)
        self.wv = nn.Linear(width, width)
        self.wo = nn.Linear(width, width)  # expect: INI001

    def _project(self, x):
        x = self.norm(x)
        q, k, v = self.wq(x), self.wk(x), self.wv(x)
        return map(lambda t: t.unflatten(-1, (self.heads, -1)).transpose(1, 2), (q, k, v))

    def forward(self, x):
        q, k, v = self._project(x)
        out = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
        return self.wo(out.transpose(1, 2).flatten(-2))


class Layer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.attention = Attention(width, heads)
        self.mlp = nn.Sequential(
            nn.LayerNorm(width), nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)  # expect: INI001
        )

    def forward(self, x):
        x = x + self.attention(x)
        return x + self.mlp(x)


class Encoder(nn.Module):
    def __init__(self, width=256, heads=4, n_layers=16):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, heads) for _ in range(n_layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
