"""A fused add-and-norm layer (flash-linear-attention's `RMSNorm`): called with the branch, the
stream and `prenorm=True`, it adds the two and hands back the normalised sum and the sum. The
first residual add happens inside that call; the init leaves both writers without the depth
factor."""

import torch.nn as nn
import torch.nn.functional as F
from fla.modules import RMSNorm


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inner = nn.Linear(width, 2 * width)
        self.outer = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x):
        return self.outer(F.silu(self.inner(x)))


class Cell(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_mix = RMSNorm(width)
        self.mixer = Mixer(width)
        self.pre_feed = RMSNorm(width)
        self.feed_in = nn.Linear(width, 3 * width)
        self.feed_out = nn.Linear(3 * width, width)  # expect: INI001

    def forward(self, stream):
        kept = stream
        mixed = self.mixer(self.pre_mix(stream))
        normed, kept = self.pre_feed(mixed, kept, True)
        return kept + self.feed_out(F.gelu(self.feed_in(normed)))


class Network(nn.Module):
    def __init__(self, width=64, cells=6):
        super().__init__()
        self.lookup = nn.Embedding(300, width)
        self.cells = nn.ModuleList([Cell(width) for _ in range(cells)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        stream = self.lookup(tokens)
        for cell in self.cells:
            stream = cell(stream)
        return stream
