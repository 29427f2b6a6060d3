"""The stack: PyTorch's default init everywhere, so nothing here decides the writers' std."""
import torch.nn as nn

from tiny.block import Layer


class Net(nn.Module):
    def __init__(self, vocab=1000, width=128, depth=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(width)
        self.unembed = nn.Linear(width, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.unembed(self.final_norm(x))
