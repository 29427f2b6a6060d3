"""A hierarchical model: a loop over the stages nests a loop that builds `stage_depths[s]`
blocks. The writers get 0.02 / sqrt(2 * sum(stage_depths)), the blocks of every stage."""
import math

import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4 * dim, dim)

    def mix(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.proj(weights @ v)

    def forward(self, x):
        x = x + self.mix(self.norm1(x))
        return x + self.fc2(self.act(self.fc1(self.norm2(x))))


class Pyramid(nn.Module):
    def __init__(self, width, stage_depths):
        super().__init__()
        layers = [nn.Linear(48, width)]
        for s in range(len(stage_depths)):
            dim = width * 2**s
            stage = []
            for _ in range(stage_depths[s]):
                stage.append(Block(dim))
            layers.append(nn.Sequential(*stage))
            if s < len(stage_depths) - 1:
                layers.append(nn.Linear(dim, 2 * dim))
        self.features = nn.Sequential(*layers)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)
        writer_std = 0.02 / math.sqrt(2 * sum(stage_depths))
        for m in self.modules():
            if isinstance(m, Block):
                nn.init.normal_(m.proj.weight, std=writer_std)
                nn.init.normal_(m.fc2.weight, std=writer_std)

    def forward(self, x):
        return self.features(x)
