"""A pre-norm mixer whose norms are written out by hand, with no norm in their names: the
token-mixing branch reads its input through a module that subtracts the mean and divides by
the square root of the variance (then a learned gain), the channel-mixing branch through a
helper method that divides the centred input by its standard deviation. Both branches are
added into the stream; their last layers keep PyTorch's default init, with no depth factor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Whiten(nn.Module):
    def __init__(self, width, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gain = nn.Parameter(torch.ones(width))
        self.shift = nn.Parameter(torch.zeros(width))

    def forward(self, x):
        centred = x - x.mean(dim=-1, keepdim=True)
        spread = centred.var(dim=-1, keepdim=True, unbiased=False)
        return centred / torch.sqrt(spread + self.eps) * self.gain + self.shift


class TokenMix(nn.Module):
    def __init__(self, length):
        super().__init__()
        self.mix_in = nn.Linear(length, 2 * length)
        self.mix_out = nn.Linear(2 * length, length)  # expect: INI001

    def forward(self, x):
        return self.mix_out(F.gelu(self.mix_in(x)))


class ChannelMix(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Mixer(nn.Module):
    def __init__(self, length, width):
        super().__init__()
        self.whiten = Whiten(width)
        self.tokens = TokenMix(length)
        self.channels = ChannelMix(width)

    def _scale_free(self, x):
        return (x - x.mean(dim=-1, keepdim=True)) / x.std(dim=-1, keepdim=True)

    def forward(self, x):
        x = x + self.tokens(self.whiten(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channels(self._scale_free(x))


class Forecaster(nn.Module):
    def __init__(self, length=96, width=32, horizon=24, n_mixers=6):
        super().__init__()
        self.mixers = nn.ModuleList([Mixer(length, width) for _ in range(n_mixers)])
        self.project = nn.Linear(length, horizon)

    def forward(self, x):
        for mixer in self.mixers:
            x = mixer(x)
        return self.project(x.transpose(1, 2)).transpose(1, 2)
