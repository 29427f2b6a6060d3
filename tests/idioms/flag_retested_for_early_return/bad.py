"""A pre-norm block that can skip its feed-forward (the last block of a joint transformer): the
feed-forward's input is normalised under `if not skip_ff:`, and a later `if skip_ff: return x`
hands the stream back early. The early return runs only where the first `if` did not, so the
stream it hands back is never the normalised copy: the block is pre-norm, and its writers keep
PyTorch's default init."""

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.ff_norm = nn.LayerNorm(width)
        self.ff = FeedForward(width)

    def forward(self, x, skip_ff=False):
        x = x + self.attn(self.attn_norm(x))
        residual = x
        if not skip_ff:
            x = self.ff_norm(x)
        if skip_ff:
            return x
        x = residual + self.ff(x)
        return x


class Transformer(nn.Module):
    def __init__(self, width=64, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for index, block in enumerate(self.blocks):
            x = block(x, skip_ff=index == len(self.blocks) - 1)
        return x
