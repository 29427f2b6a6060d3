"""The same conv and BatchNorm module, but run as a branch added back (`x + mix(x)`) rather than
on the stream itself: nothing resets the stream, so the branch outputs sum over depth and keep
PyTorch's default init with no depth factor."""

import torch.nn as nn


class ConvNorm(nn.Sequential):
    def __init__(self, channels, kernel_size=3):
        super().__init__()
        self.add_module("conv", nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2, groups=channels))
        self.add_module("norm", nn.BatchNorm1d(channels))


class PreNormMLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)  # expect: INI001

    def forward(self, x):
        return self.down(self.up(self.norm(x)).relu())


class BranchBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mixer = PreNormMLP(dim, dim)
        self.mix = ConvNorm(dim)
        self.ff = PreNormMLP(dim, 4 * dim)

    def forward(self, x):
        x = x + self.mixer(x)
        x = x + self.mix(x.transpose(1, 2)).transpose(1, 2)
        return x + self.ff(x)


class HybridNet(nn.Module):
    def __init__(self, dim=96, depth=12, num_classes=10):
        super().__init__()
        self.branch = nn.ModuleList([BranchBlock(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, num_classes)

    def forward(self, tokens):
        x = tokens
        for block in self.branch:
            x = block(x)
        return self.head(x.mean(1))
