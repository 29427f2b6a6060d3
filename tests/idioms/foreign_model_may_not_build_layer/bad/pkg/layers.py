"""A mixer layer two models of the package use; its output projection writes the stream."""

import torch.nn as nn
import torch.nn.functional as F


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.proj_in = nn.Linear(width, 2 * width)
        self.proj_out = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x):
        return self.proj_out(F.gelu(self.proj_in(x)))
