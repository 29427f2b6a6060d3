"""The add is a module of its own: `residual_fn(branch, residual)` runs a parameter-free module
whose `forward` adds its two arguments. The feed-forward writer is left at 0.02."""
import torch.nn as nn


class AddResidual(nn.Module):
    def forward(self, branch, residual):
        return branch + residual


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.down = nn.Linear(4 * dim, dim)  # expect: INI001

    def forward(self, x):
        return self.down(self.act(self.up(x)))


class Stack(nn.Module):
    def __init__(self, dim=256, depth=8):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.ModuleList([nn.LayerNorm(dim), FeedForward(dim), AddResidual()]) for _ in range(depth)]
        )
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for norm, ff, residual_fn in self.layers:
            residual = x
            x = residual_fn(ff(norm(x)), residual)
        return x
