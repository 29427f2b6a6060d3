"""A block whose first branch is a linear recurrence with no output projection: the state is
updated as `state = keep * state + drive(x_t)` step by step and the states themselves are the
branch output. No layer writes that output at the scale its own init sets (the state sums the
drive over the steps, times the products of the later factors), so `decay` and `drive` are not
residual writers. The MLP's last layer is, and keeps PyTorch's default init: reported."""

import torch
import torch.nn as nn


class Recurrence(nn.Module):
    def __init__(self, width, std=0.01):
        super().__init__()
        self.width = width
        self.decay = nn.Linear(width, width, bias=False)
        nn.init.normal_(self.decay.weight, std=std)
        self.drive = nn.Linear(width, width, bias=False)
        nn.init.normal_(self.drive.weight, std=std)

    def forward(self, x):
        batch, steps, _ = x.shape
        state = torch.zeros(batch, self.width, device=x.device)
        states = torch.zeros(batch, steps, self.width, device=x.device)
        for t in range(steps):
            keep = 1.0 + self.decay(x[:, t])
            state = keep * state + self.drive(x[:, t])
            states[:, t] = state
        return states


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.rec = Recurrence(width)
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        x = x + self.rec(self.norm1(x))
        x = x + self.down(torch.relu(self.up(self.norm2(x))))
        return x


class Model(nn.Module):
    def __init__(self, width=64, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
