"""A helper of the file that zeroes one chosen layer (`zero_init_(self.head)` in another model of
the same file) is no per-module init a trainer applies to this model: the transformer's writers
keep PyTorch's default init, with no depth factor."""
import torch.nn as nn


def zero_init_(layer):
    nn.init.zeros_(layer.weight)
    if layer.bias is not None:
        nn.init.zeros_(layer.bias)


class Attend(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.out(attn @ v)


def feedforward(dim, mult=4):
    return nn.Sequential(
        nn.LayerNorm(dim),
        nn.Linear(dim, dim * mult),
        nn.GELU(),
        nn.Linear(dim * mult, dim),  # expect: INI001
    )


class Decoder(nn.Module):
    def __init__(self, dim, depth, heads=8):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(nn.ModuleList([Attend(dim, heads), feedforward(dim)]))

    def forward(self, x):
        for attend, ff in self.layers:
            x = attend(x) + x
            x = ff(x) + x
        return x


class Denoiser(nn.Module):
    def __init__(self, dim, channels):
        super().__init__()
        self.body = nn.Conv2d(channels, dim, 3, padding=1)
        self.head = nn.Conv2d(dim, channels, 1)
        zero_init_(self.head)

    def forward(self, x):
        return self.head(self.body(x).relu())
