"""Each block computes rotary angles with a module of no parameters that reads only the stream's
length and device (`self.rotary(x)`), and hands them to the attention beside the normalised
stream: the angles hold nothing of the stream, the attention's input is normalised: pre-norm.
Nothing scales the writers."""
import torch
import torch.nn as nn


class Rotary(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        self.dim = dim
        self.base = base

    def forward(self, x):
        n, device = x.shape[1], x.device
        positions = torch.arange(n, device=device).float()[:, None]
        frequencies = self.base ** (-torch.arange(0, self.dim, 2, device=device).float() / self.dim)
        angles = positions * frequencies
        return angles.cos(), angles.sin()


class Attention(nn.Module):
    def __init__(self, width, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)  # expect: INI001

    def forward(self, x, rotation):
        cos, sin = rotation
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        q = q * cos.repeat(1, 2) + q.roll(1, dims=-1) * sin.repeat(1, 2)
        k = k * cos.repeat(1, 2) + k.roll(1, dims=-1) * sin.repeat(1, 2)
        mixed = torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
        return self.out(mixed.transpose(1, 2).reshape(b, n, c))


class Block(nn.Module):
    def __init__(self, width, heads=4):
        super().__init__()
        self.rotary = Rotary(width // heads)
        self.norm = nn.LayerNorm(width)
        self.attn = Attention(width, heads)

    def forward(self, x):
        rotation = self.rotary(x)
        return x + self.attn(self.norm(x), rotation)


class Model(nn.Module):
    def __init__(self, width=256, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
