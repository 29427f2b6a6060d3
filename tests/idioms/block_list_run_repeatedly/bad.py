"""One list of blocks run several times over (weights shared across the repeats): each run adds
its blocks' branches again, so the stream takes 2 * repeats * per_repeat adds; the writers,
left at PyTorch's default init, have no depth factor."""
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001
        self.norm_2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.out(F.scaled_dot_product_attention(q, k, v))
        return x + self.down(F.gelu(self.up(self.norm_2(x))))


class Latents(nn.Module):
    def __init__(self, width=64, per_repeat=6, repeats=4):
        super().__init__()
        self.repeats = repeats
        self.blocks = nn.ModuleList([Block(width) for _ in range(per_repeat)])

    def forward(self, x):
        for _ in range(self.repeats):
            for block in self.blocks:
                x = block(x)
        return x
