"""A pre-norm residual branch whose sublayer its subclasses hand to `__init__`."""

import torch.nn as nn


class PreNormBranch(nn.Module):
    def __init__(self, dim, inner):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.inner = inner

    def forward(self, x):
        return x + self.inner(self.norm(x))
