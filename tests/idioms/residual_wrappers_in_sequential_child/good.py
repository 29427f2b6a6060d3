"""Each block hands the stream to a child that runs an `nn.Sequential` of residual wrappers
(`fn(x) + x`), each around a branch that normalises its input first: the wrappers' adds are the
block's, two per block, pre-norm: the writers are scaled by 1/sqrt(2 * depth)."""
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, **kwargs):
        return self.fn(x, **kwargs) + x


class Mixer(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(self.up(self.norm(x)).relu())


class Update(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.steps = nn.Sequential(Residual(Mixer(dim, 2 * dim)), Residual(Mixer(dim, 4 * dim)))

    def forward(self, x):
        return self.steps(x)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.update = Update(dim)

    def forward(self, x):
        x = self.update(x)
        return x


class Model(nn.Module):
    def __init__(self, dim=128, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        for name, p in self.named_parameters():
            if name.endswith("down.weight"):
                nn.init.normal_(p, std=0.02 / (2 * depth) ** 0.5)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
