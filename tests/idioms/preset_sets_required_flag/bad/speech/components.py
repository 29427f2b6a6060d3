import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-1, -2), dim=-1)
        return self.proj(weights @ v)


class MLP(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)  # expect: INI001

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


class Layer(nn.Module):
    # `norm_before` has no default: only the presets decide whether the layer is pre-norm.
    def __init__(self, width, heads, hidden, norm_before):
        super().__init__()
        self.norm_before = norm_before
        self.attn = Attention(width, heads)
        self.mlp = MLP(width, hidden)
        self.norm1 = nn.LayerNorm(width)
        self.norm2 = nn.LayerNorm(width)

    def forward(self, x):
        if self.norm_before:
            x = x + self.attn(self.norm1(x))
            x = x + self.mlp(self.norm2(x))
        else:
            x = self.norm1(x + self.attn(x))
            x = self.norm2(x + self.mlp(x))
        return x


class Encoder(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def make_encoder(width, heads, hidden, depth, norm_before):
    layers = nn.ModuleList([Layer(width, heads, hidden, norm_before) for _ in range(depth)])
    return Encoder(layers)
