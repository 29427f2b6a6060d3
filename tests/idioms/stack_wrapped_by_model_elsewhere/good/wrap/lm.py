"""The language model around the backbone: its constructor redraws every output projection
with the GPT-2 depth factor."""

import math

import torch.nn as nn

from wrap.backbone import Backbone


class LanguageModel(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.backbone = Backbone(width, n_layers)
        self.head = nn.Linear(width, vocab, bias=False)
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith("mixer.out_proj.weight"):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layers))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        return self.head(self.backbone(self.embed(tokens)))
