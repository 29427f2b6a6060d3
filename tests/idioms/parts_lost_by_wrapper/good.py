"""The same wrapper around an encoder that scales its writers by its depth: checked as a model
of its own, the encoder is right, and nothing is reported."""

import math

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(depth))

    def forward(self, x):
        return x + self.down(torch.relu(self.up(self.norm(x))))


class Encoder(nn.Module):
    def __init__(self, width=128, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, depth) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Trainer(nn.Module):
    def __init__(self, *, encoder: Encoder | dict, accelerator, lr=3e-4):
        super().__init__()
        if isinstance(encoder, dict):
            encoder = Encoder(**encoder)
        self.encoder = encoder
        optimizer = torch.optim.AdamW(encoder.parameters(), lr=lr)
        self.encoder, self.optimizer = accelerator.prepare(self.encoder, optimizer)
