"""Each branch passes through torchvision's `StochasticDepth` (a per-sample branch dropout, the
identity at eval) before the add; the writers get 0.02 / sqrt(2 * n_blocks)."""
import math

import torch.nn as nn
from torchvision.ops import StochasticDepth


class Block(nn.Module):
    def __init__(self, dim, drop_rate):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.wqkv = nn.Linear(dim, 3 * dim)
        self.wo = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.ff_in = nn.Linear(dim, 4 * dim)
        self.ff_out = nn.Linear(4 * dim, dim)
        self.skip = StochasticDepth(drop_rate, "row")

    def attend(self, x):
        q, k, v = self.wqkv(x).chunk(3, dim=-1)
        return self.wo((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)

    def forward(self, x):
        x = x + self.skip(self.attend(self.ln1(x)))
        return x + self.skip(self.ff_out(self.ff_in(self.ln2(x)).relu()))


class Net(nn.Module):
    def __init__(self, dim, n_blocks, drop_rate=0.1):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim, drop_rate) for _ in range(n_blocks)])
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)
        for block in self.blocks:
            nn.init.normal_(block.wo.weight, std=0.02 / math.sqrt(2 * n_blocks))
            nn.init.normal_(block.ff_out.weight, std=0.02 / math.sqrt(2 * n_blocks))

    def forward(self, x):
        return self.blocks(x)
