"""A decoder stack wrapped in place (`self.decoder = Wrapper(self.decoder)`): the wrapper's
`self.net = net` keeps it, so its parameters are `decoder.net.*` and the model's own init reaches
them. Both writers are depth-scaled."""

import math

import torch
import torch.nn as nn


class Wrapper(nn.Module):
    def __init__(self, net, pad_value=0):
        super().__init__()
        self.pad_value = pad_value
        self.net = net

    def forward(self, tokens):
        return self.net(tokens[:, :-1])


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn_out = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn_out(self.norm1(x))
        return x + self.down(torch.relu(self.up(self.norm2(x))))


class Decoder(nn.Module):
    def __init__(self, vocab, dim, depth):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, tokens):
        x = self.emb(tokens)
        for block in self.blocks:
            x = block(x)
        return x


class Model(nn.Module):
    def __init__(self, vocab=1000, dim=256, depth=12):
        super().__init__()
        self.decoder = Decoder(vocab, dim, depth)
        self.decoder = Wrapper(self.decoder)
        for name, p in self.named_parameters():
            if p.dim() < 2:
                continue
            std = 0.02 / math.sqrt(2 * depth) if name.endswith(("attn_out.weight", "down.weight")) else 0.02
            nn.init.normal_(p, std=std)

    def forward(self, tokens):
        return self.decoder(tokens)
