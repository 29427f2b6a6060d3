"""Stochastic depth kept in a file of its own: the module's `forward` hands its input to a
function of this file, which keeps or drops the whole branch per sample (divided by the keep
rate, times a random 0/1 mask; the identity at eval)."""

import torch
import torch.nn as nn


def skip_branch(x, rate, training):
    if rate == 0.0 or not training:
        return x
    keep = 1.0 - rate
    coin = torch.rand((x.shape[0],) + (1,) * (x.ndim - 1), dtype=x.dtype, device=x.device)
    return x.div(keep) * torch.floor(coin + keep)


class SkipBranch(nn.Module):
    def __init__(self, rate=0.0):
        super().__init__()
        self.rate = rate

    def forward(self, x):
        return skip_branch(x, self.rate, self.training)
