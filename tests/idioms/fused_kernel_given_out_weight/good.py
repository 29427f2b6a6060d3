"""A mixer that hands its input projection's output, with the output
projection's raw weight, to a fused kernel the linter cannot read: the output
projection still writes the branch, not the input projection. It is scaled
for depth."""

import math

import torch.nn as nn

from fast_kernels import fused_gated_scan


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.in_proj = nn.Linear(width, 2 * width, bias=False)
        self.out_proj = nn.Linear(width, width, bias=False)

    def forward(self, x):
        projected = self.in_proj(x)
        mixed = fused_gated_scan(projected, self.out_proj.weight, self.out_proj.bias)
        return mixed


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mixer = Mixer(width)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, depth=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith("mixer.out_proj.weight"):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * len(self.blocks)))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
