"""The stack: it imports only the block and hands the depth to the layers, which scale their writers."""
import torch.nn as nn

from tiny.block import Block


class Decoder(nn.Module):
    def __init__(self, vocab=512, width=128, depth=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width, depth) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
