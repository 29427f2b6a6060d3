"""Each block hands its attention the normalised stream and the rotary angles, a buffer cast to
the stream's dtype and device (`self.angles.to(x)`): the cast takes only the stream's dtype, so
the attention's input is the normalised stream: pre-norm, and the writer is scaled by the depth."""
import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, width, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)

    def forward(self, x, angles):
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        q = q * angles.cos() + q.roll(1, dims=-1) * angles.sin()
        k = k * angles.cos() + k.roll(1, dims=-1) * angles.sin()
        mixed = torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
        return self.out(mixed.transpose(1, 2).reshape(b, n, c))


class Block(nn.Module):
    def __init__(self, width, heads=4, length=128):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.attn = Attention(width, heads)
        positions = torch.arange(length).float()[:, None]
        self.register_buffer("angles", positions / 10000 ** (torch.arange(width // heads) / (width // heads)))

    def forward(self, x):
        angles = self.angles[: x.shape[1]].to(x)
        return x + self.attn(self.norm(x), angles)


class Model(nn.Module):
    def __init__(self, width=256, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        for block in self.blocks:
            nn.init.normal_(block.attn.out.weight, std=0.02 / depth**0.5)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
