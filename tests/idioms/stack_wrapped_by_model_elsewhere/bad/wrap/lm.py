"""The language model around the backbone: its constructor draws every linear layer with
one std, the output projections included."""

import torch.nn as nn

from wrap.backbone import Backbone


class LanguageModel(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.backbone = Backbone(width, n_layers)
        self.head = nn.Linear(width, vocab, bias=False)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        return self.head(self.backbone(self.embed(tokens)))
