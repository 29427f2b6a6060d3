"""The model: blocks from `lm.layers`, initialised in the constructor."""
import math

import torch.nn as nn

from lm.layers import Attention, FeedForward, TransformerBlock


class Transformer(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, n_layers=16):
        super().__init__()
        self.n_layers = n_layers
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([TransformerBlock(dim) for _ in range(n_layers)])
        self.norm = nn.RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        std = 0.02 / math.sqrt(2 * self.n_layers)
        if isinstance(module, Attention):
            nn.init.normal_(module.wo.weight, std=std)
        elif isinstance(module, FeedForward):
            nn.init.normal_(module.w2.weight, std=std)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))
