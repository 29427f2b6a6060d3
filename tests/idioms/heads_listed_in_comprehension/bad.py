"""Attention as a list of single-head modules, the heads' outputs gathered by a comprehension
over the list and joined before a merging layer; every Linear drawn with 0.02, no depth factor."""

import torch
import torch.nn as nn


class SingleHead(nn.Module):
    def __init__(self, width, size):
        super().__init__()
        self.query = nn.Linear(width, size, bias=False)
        self.key = nn.Linear(width, size, bias=False)
        self.value = nn.Linear(width, size, bias=False)

    def forward(self, x):
        weights = (self.query(x) @ self.key(x).transpose(-2, -1)).softmax(dim=-1)
        return weights @ self.value(x)


class Heads(nn.Module):
    def __init__(self, width, n_heads):
        super().__init__()
        self.heads = nn.ModuleList(SingleHead(width, width // n_heads) for _ in range(n_heads))
        self.merge = nn.Linear(width, width)  # expect: INI001
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        out = torch.cat([one(x) for one in self.heads], dim=-1)
        out = self.merge(out)
        return self.drop(out)


class Layer(nn.Module):
    def __init__(self, width, n_heads):
        super().__init__()
        self.norm_a = nn.LayerNorm(width)
        self.attend = Heads(width, n_heads)
        self.norm_b = nn.LayerNorm(width)
        self.widen = nn.Linear(width, 4 * width)
        self.narrow = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        x = x + self.attend(self.norm_a(x))
        return x + self.narrow(torch.relu(self.widen(self.norm_b(x))))


class CharModel(nn.Module):
    def __init__(self, vocab=96, width=192, n_heads=6, n_layers=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.Sequential(*[Layer(width, n_heads) for _ in range(n_layers)])
        self.unembed = nn.Linear(width, vocab)
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, idx):
        return self.unembed(self.layers(self.embed(idx)))
