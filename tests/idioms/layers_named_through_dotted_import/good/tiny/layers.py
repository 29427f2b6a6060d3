"""Branch modules only; the block names them through `import tiny.layers`, the stack is a third file."""
import math

import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)
        nn.init.normal_(self.out.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class FeedForward(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))
