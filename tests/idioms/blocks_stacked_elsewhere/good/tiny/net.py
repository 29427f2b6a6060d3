"""The stack: its constructor gives every residual writer the GPT-2 depth factor."""
import math

import torch.nn as nn

from tiny.block import Layer
from tiny.layers import GatedMLP, SelfAttention


class Net(nn.Module):
    def __init__(self, vocab=1000, width=128, depth=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(width)
        self.unembed = nn.Linear(width, vocab, bias=False)
        for module in self.modules():
            if isinstance(module, SelfAttention):
                nn.init.normal_(module.to_out.weight, std=0.02 / math.sqrt(2 * depth))
            elif isinstance(module, GatedMLP):
                nn.init.normal_(module.down.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.unembed(self.final_norm(x))
