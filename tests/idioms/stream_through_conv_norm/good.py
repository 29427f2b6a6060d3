"""A hybrid conv/token-mixing model whose blocks add a branch, then put the whole stream through
a depthwise conv followed by a BatchNorm (or through a norm alone) before the next add. The norm
at the end resets the stream once per block, as a post-norm block's `norm(x + f(x))` does, so
the adds never sum over depth: no depth factor is owed."""

import torch.nn as nn


class ConvNorm(nn.Sequential):
    def __init__(self, channels, kernel_size=3):
        super().__init__()
        self.add_module("conv", nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2, groups=channels))
        self.add_module("norm", nn.BatchNorm1d(channels))


class ConvThenNorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.depthwise = nn.Conv1d(channels, channels, 3, padding=1, groups=channels)
        self.bn = nn.BatchNorm1d(channels)

    def forward(self, x):
        return self.bn(self.depthwise(x))


class PreNormMLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(self.up(self.norm(x)).relu())


class Block(nn.Module):
    def __init__(self, dim, reset):
        super().__init__()
        self.mixer = PreNormMLP(dim, dim)
        self.ff = PreNormMLP(dim, 4 * dim)
        self.reset = reset

    def forward(self, x):
        x = x + self.mixer(x)
        x = self.reset(x.transpose(1, 2)).transpose(1, 2)
        return x + self.ff(x)


class NormBlock(Block):
    def forward(self, x):
        x = self.mixer(x) + x
        x = self.reset(x)
        x = x + self.ff(x)
        return x


class TailBlock(Block):
    def forward(self, x):
        x = x + self.mixer(x)
        x = x + self.ff(x)
        return self.reset(x.transpose(1, 2)).transpose(1, 2)


class HybridNet(nn.Module):
    def __init__(self, dim=96, depth=12, num_classes=10):
        super().__init__()
        self.sequential = nn.ModuleList([Block(dim, ConvNorm(dim)) for _ in range(depth)])
        self.convs = nn.ModuleList([Block(dim, ConvThenNorm(dim)) for _ in range(depth)])
        self.norm = nn.ModuleList([NormBlock(dim, nn.LayerNorm(dim)) for _ in range(depth)])
        tail = [nn.Sequential(nn.Conv1d(dim, dim, 1), nn.BatchNorm1d(dim)) for _ in range(depth)]
        self.tail = nn.ModuleList([TailBlock(dim, reset) for reset in tail])
        self.head = nn.Linear(dim, num_classes)

    def forward(self, tokens):
        x = tokens
        for blocks in (self.sequential, self.convs, self.norm, self.tail):
            for block in blocks:
                x = block(x)
        return self.head(x.mean(1))
