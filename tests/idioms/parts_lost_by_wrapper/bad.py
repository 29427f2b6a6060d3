"""A training wrapper that builds its encoder from a config dict and then hands it to an
accelerator, keeping what `prepare` hands back: the wrapper holds no parameters of its own, so
the encoder it built is still a model to check, and its writers have no depth factor."""

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.down(torch.relu(self.up(self.norm(x))))


class Encoder(nn.Module):
    def __init__(self, width=128, depth=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

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
