"""An empty ModuleList filled by one `extend` of a comprehension, each block given its own drop
rate: a stack of `depth` pre-norm blocks whose writers keep PyTorch's default init."""
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, dim, drop=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)  # expect: INI001
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return x + self.drop(self.fc2(self.fc1(self.norm(x)).relu()))


class Tower(nn.Module):
    def __init__(self, dim=128, depth=8, max_drop=0.2):
        super().__init__()
        rates = [max_drop * i / depth for i in range(depth)]
        self.blocks = nn.ModuleList([])
        self.blocks.extend([Residual(dim, drop=rates[i]) for i in range(depth)])

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x
