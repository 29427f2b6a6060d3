"""A layer file: a post-norm encoder it stacks itself, and an MLP only another file stacks."""
import torch.nn as nn


class MLPBlock(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.lin1 = nn.Linear(width, hidden)
        self.lin2 = nn.Linear(hidden, width)  # expect: INI001
        self.act = nn.GELU()

    def forward(self, x):
        return self.lin2(self.act(self.lin1(x)))


class EncoderLayer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)
        self.norm1 = nn.LayerNorm(width)
        self.norm2 = nn.LayerNorm(width)

    def forward(self, x):
        x = self.norm1(x + self.attn(x, x, x, need_weights=False)[0])
        return self.norm2(x + self.fc2(self.fc1(x).relu()))


class Encoder(nn.Module):
    def __init__(self, width=256, heads=8, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(width, heads) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
