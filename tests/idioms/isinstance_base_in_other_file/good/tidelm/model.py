"""`isinstance(module, nn.MultiheadAttention)` is False for a class of the project built on
`nn.Module` only, though its base is defined in another file."""
import math

import torch.nn as nn

from tidelm.attention import CausalAttention


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.attn = CausalAttention(width, heads=4)
        self.norm_2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)
        self.down.depth_scaled = True

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.down(nn.functional.gelu(self.up(self.norm_2(x))))


class TideLM(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=8):
        super().__init__()
        self.n_layers = n_layers
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layers)])
        self.apply(self._init_module)

    def _init_module(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
            if getattr(module, "depth_scaled", False):
                module.weight.data.div_(math.sqrt(2 * self.n_layers))
        elif isinstance(module, nn.MultiheadAttention):
            nn.init.normal_(module.out_proj.weight, std=0.02)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
