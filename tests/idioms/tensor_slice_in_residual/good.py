"""A video block that attends over time on the patch tokens only: the class token is cut off with
a tensor slice (`x[:, 1:, :]`, a view of the stream, not the tail of a tuple of outputs) and the
attention output is added back onto that view. Both writers are scaled by the depth."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.time_norm = nn.LayerNorm(width)
        self.time_qkv = nn.Linear(width, 3 * width)
        self.time_out = nn.Linear(width, width)
        self.mlp_norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.time_qkv(self.time_norm(x[:, 1:, :])).chunk(3, dim=-1)
        patches = x[:, 1:, :] + self.time_out(F.scaled_dot_product_attention(q, k, v))
        x = torch.cat((x[:, :1, :], patches), dim=1)
        return x + self.fc2(F.gelu(self.fc1(self.mlp_norm(x))))


class VideoEncoder(nn.Module):
    def __init__(self, width=384, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.trunc_normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)
        for block in self.blocks:
            nn.init.trunc_normal_(block.time_out.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.trunc_normal_(block.fc2.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
