"""Stochastic depth written out in the file: parameter-free modules whose `forward` keeps or drops
the whole branch per sample (the branch divided by the keep rate, times a random 0/1 mask; the
identity at eval), one inline, one through a module-level function. They sit between each writer
and its add; the writers keep the plain 0.02, no depth factor."""
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


class Block(nn.Module):
    def __init__(self, dim, rate):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.wqkv = nn.Linear(dim, 3 * dim)
        self.wo = nn.Linear(dim, dim)  # expect: INI001
        self.ln2 = nn.LayerNorm(dim)
        self.ff_in = nn.Linear(dim, 4 * dim)
        self.ff_out = nn.Linear(4 * dim, dim)  # expect: INI001
        self.attn_skip = BranchDrop(rate) if rate > 0 else nn.Identity()
        self.mlp_skip = SampleSkip(rate)

    def attend(self, x):
        q, k, v = self.wqkv(x).chunk(3, dim=-1)
        return self.wo((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)

    def forward(self, x):
        x = x + self.attn_skip(self.attend(self.ln1(x)))
        return x + self.mlp_skip(self.ff_out(self.ff_in(self.ln2(x)).relu()))


class Net(nn.Module):
    def __init__(self, dim=256, n_blocks=12, rate=0.1):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, rate * i / n_blocks) for i in range(n_blocks)])
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
