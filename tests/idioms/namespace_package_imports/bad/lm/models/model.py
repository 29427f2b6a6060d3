"""The model imports its block through the namespace's own name (`lm.layers.blocks`), as an
installed namespace package is imported; its init scales the MLP
output by the depth but forgets the attention output."""
import math

import torch.nn as nn

from lm.layers.blocks import Block


class LM(nn.Module):
    def __init__(self, vocab=1000, d=256, n_layers=12):
        super().__init__()
        self.n_layers = n_layers
        self.wte = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, Block):
            for writer in (module.down,):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * self.n_layers))

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x)
        return x
