"""`lm/models/` has no `__init__.py` but `lm/` has one: Python imports this file as
`lm.models.net`, so `..blocks` is `lm.blocks`. The writers get the depth factor."""
import math

import torch.nn as nn

from ..blocks import Block


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=12):
        super().__init__()
        self.n_layers = n_layers
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, Block):
            for writer in (module.attn_out, module.mlp_out):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * self.n_layers))

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
