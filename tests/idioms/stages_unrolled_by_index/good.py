"""A hierarchical encoder whose stages are written out one by one, each building
`depths[k]` blocks from the root's per-stage list (`range(depths[0])`, `range(depths[1])`).
The stages share one residual stream: sum(depths) blocks of two adds, each
writer scaled by 1/sqrt(2 * sum(depths))."""
import math

import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim * 4)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(dim * 4, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Mixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Mixer(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, widths=(64, 128), depths=(2, 6)):
        super().__init__()
        self.stage1 = nn.Sequential(*[Block(widths[0]) for _ in range(depths[0])])
        self.down = nn.Linear(widths[0], widths[1])
        self.stage2 = nn.Sequential(*[Block(widths[1]) for _ in range(depths[1])])
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith(("fc2.weight", "proj.weight")):
                nn.init.trunc_normal_(p, std=0.02 / math.sqrt(2 * sum(depths)))

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.stage1(x)
        x = self.down(x)
        return self.stage2(x)
