"""Feed-forward layers only; a block finds them through the table of the package."""

import torch.nn as nn
import torch.nn.functional as F


class GeluMlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class GluMlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.gate_up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(2 * width, width)

    def forward(self, x):
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)
