"""`lm/models/` has no `__init__.py` but `lm/` has one: Python imports this file as
`lm.models.net`, so `..blocks` is `lm.blocks`. Every layer keeps an init with no depth factor."""
import torch.nn as nn

from ..blocks import Block


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
