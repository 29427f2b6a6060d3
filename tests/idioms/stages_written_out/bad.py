"""A hierarchical encoder whose stages are written out one by one: stage k holds
`stage_depths[k]` pre-norm blocks, picked from the per-stage list by a constant index, and a
down-sampling layer sits between stages. The stream runs through every stage's blocks; the
writers keep the plain 0.02 of the init hook, no depth factor."""

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)  # expect: INI001
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.proj((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)
        return x + self.fc2(self.fc1(self.norm2(x)).relu())


class Encoder(nn.Module):
    def __init__(self, widths=(32, 64, 128), stage_depths=(3, 6, 3)):
        super().__init__()
        self.stage1 = nn.Sequential(*[Block(widths[0]) for _ in range(stage_depths[0])])
        self.down1 = nn.Linear(widths[0], widths[1])
        self.stage2 = nn.Sequential(*[Block(widths[1]) for _ in range(stage_depths[1])])
        self.down2 = nn.Linear(widths[1], widths[2])
        self.stage3 = nn.Sequential(*[Block(widths[2]) for _ in range(stage_depths[2])])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.trunc_normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)

    def forward(self, x):
        x = self.down1(self.stage1(x))
        x = self.down2(self.stage2(x))
        return self.stage3(x)
