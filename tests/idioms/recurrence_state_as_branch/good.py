"""The same recurrent block with the MLP's last layer scaled by the number of adds: the
recurrence's `decay` and `drive` feed its state, they write no branch output, so nothing is left
unscaled."""

import math

import torch
import torch.nn as nn


class Recurrence(nn.Module):
    def __init__(self, width, std=0.01):
        super().__init__()
        self.width = width
        self.start = nn.Parameter(torch.randn(width) * std)
        self.decay = nn.Linear(width, width, bias=False)
        nn.init.normal_(self.decay.weight, std=std)
        self.drive = nn.Linear(width, width, bias=False)
        nn.init.normal_(self.drive.weight, std=std)

    def forward(self, x):
        batch, steps, _ = x.shape
        state = self.start.unsqueeze(0).expand(batch, -1)
        states = torch.zeros(batch, steps, self.width, device=x.device)
        for t in range(steps):
            keep = torch.diag_embed(1.0 + self.decay(x[:, t]))
            state = torch.matmul(keep, state.unsqueeze(-1)).squeeze(-1) + self.drive(x[:, t])
            states[:, t] = state
        return states


class Block(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.rec = Recurrence(width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x):
        x = x + self.rec(self.norm1(x))
        x = x + self.down(torch.relu(self.up(self.norm2(x))))
        return x


class Model(nn.Module):
    def __init__(self, width=64, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, depth) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
