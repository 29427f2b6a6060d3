import math

import torch.nn as nn

from steplm.builders import build_feedforward


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)
        self.mix.scaled_by_depth = True
        self.norm_2 = nn.LayerNorm(width)
        self.ff = build_feedforward("squared_relu", width)

    def forward(self, x):
        x = x + self.mix(self.norm_1(x))
        return x + self.ff(self.norm_2(x))


class StepLM(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(width)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
                if getattr(module, "scaled_by_depth", False):
                    module.weight.data.div_(math.sqrt(2 * n_layers))

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x)
