"""The same stochastic depth modules. The attention writer is scaled by 1/sqrt(2 * n_blocks); the
MLP branch is rescaled to unit RMS by a parameter-free module before its stochastic depth: that
output is not the branch times something independent of it, so the MLP writer's init does not
set the scale that reaches the stream."""
import math

import torch
import torch.nn as nn


def skip_some_samples(x, rate, training):
    if rate == 0.0 or not training:
        return x
    keep = 1.0 - rate
    mask = x.new_empty((x.shape[0],) + (1,) * (x.ndim - 1)).bernoulli_(keep)
    return x * mask / keep


class SampleSkip(nn.Module):
    def __init__(self, rate=0.0):
        super().__init__()
        self.rate = rate

    def forward(self, x):
        return skip_some_samples(x, self.rate, self.training)


class BranchDrop(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training:
            return x
        coin = torch.rand(x.size(0), 1, 1, dtype=x.dtype, device=x.device)
        coin = torch.floor(coin + (1 - self.p))
        return x.div(1 - self.p) * coin


class UnitRms(nn.Module):
    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class Block(nn.Module):
    def __init__(self, dim, rate):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.wqkv = nn.Linear(dim, 3 * dim)
        self.wo = nn.Linear(dim, dim)
        self.ff_in = nn.Linear(dim, 4 * dim)
        self.ff_out = nn.Linear(4 * dim, dim)
        self.unit = UnitRms()
        self.attn_skip = BranchDrop(rate) if rate > 0 else nn.Identity()
        self.mlp_skip = SampleSkip(rate)

    def attend(self, x):
        q, k, v = self.wqkv(x).chunk(3, dim=-1)
        return self.wo((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)

    def forward(self, x):
        x = x + self.attn_skip(self.attend(self.ln1(x)))
        return x + self.mlp_skip(self.unit(self.ff_out(self.ff_in(self.ln2(x)).relu())))


class Net(nn.Module):
    def __init__(self, dim=256, n_blocks=12, rate=0.1):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, rate * i / n_blocks) for i in range(n_blocks)])
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)
        for block in self.blocks:
            nn.init.normal_(block.wo.weight, std=0.02 / math.sqrt(2 * n_blocks))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
