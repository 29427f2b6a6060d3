"""A hierarchical encoder keeps each stage as a ModuleList of [patch merge, blocks]; the blocks are
class-less pairs of pre-norm branches that the model's `forward` runs in a loop nested in its loop
over the stages, unpacking each stage. The writers keep PyTorch's default init."""
import torch.nn as nn


class PreNorm(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x))


class Mixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_v = nn.Linear(dim, dim)
        self.to_out = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        return self.to_out(self.to_v(x).softmax(dim=-1))


class Encoder(nn.Module):
    def __init__(self, dims=(32, 64, 128), depth=2):
        super().__init__()
        self.stages = nn.ModuleList([])
        dim_in = 3
        for dim in dims:
            blocks = nn.ModuleList([])
            for _ in range(depth):
                mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))  # expect: INI001
                blocks.append(nn.ModuleList([PreNorm(dim, Mixer(dim)), PreNorm(dim, mlp)]))
            self.stages.append(nn.ModuleList([nn.Linear(dim_in, dim), blocks]))
            dim_in = dim

    def forward(self, x):
        for merge, blocks in self.stages:
            x = merge(x)
            for (mix, mlp) in blocks:
                x = mix(x) + x
                x = mlp(x) + x
        return x
