"""A subclass of nn.Sequential hands its layers to `super().__init__(*layers)`: they are its
children, built by a helper that calls a factory once per layer. Both writers start at zero."""

import torch.nn as nn


class LayerChain(nn.Sequential):
    def __init__(self, *layers, note=""):
        super().__init__(*layers)
        self.note = note

    def forward(self, x, mask):
        for layer in self:
            x, mask = layer(x, mask)
        return x, mask


def stacked(count, make):
    return LayerChain(*[make(i) for i in range(count)])


class EncoderLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.mix = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        for writer in (self.mix, self.fc2):
            nn.init.zeros_(writer.weight)

    def forward(self, x, mask):
        x = x + self.mix(self.norm1(x) * mask)
        x = x + self.fc2(self.fc1(self.norm2(x)).relu())
        return x, mask


class Encoder(nn.Module):
    def __init__(self, dim=256, num_blocks=6):
        super().__init__()
        self.encoders = stacked(num_blocks, lambda index: EncoderLayer(dim))

    def forward(self, x, mask):
        x, mask = self.encoders(x, mask)
        return x
