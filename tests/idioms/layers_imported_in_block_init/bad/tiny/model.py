"""The stack, a file away from the block and two from the attention; it leaves the init alone."""
import torch.nn as nn

from .block import Block


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, width=128, depth=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
