"""A container that calls the factory it is given once per copy."""

import torch.nn as nn


class Repeated(nn.Module):
    def __init__(self, make, copies):
        super().__init__()
        self.copies = nn.ModuleList([make() for _ in range(copies)])

    def forward(self, x):
        for block in self.copies:
            x = block(x)
        return x
