import math

import torch
import torch.nn as nn

from gptpkg.config import GPTConfig
from .blocks import Block
from .utils import init_helpers
from .utils.init_helpers import scaled_normal_ as scaled


class GPT(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)

    @classmethod
    def from_pretrained(cls, name):
        return cls(GPTConfig())

    def init_weights(self):
        self.apply(self._init_weights)

    def _init_weights(self, module, n_layer=12):
        if isinstance(module, nn.Linear):
            init_helpers.normal_(module.weight, std=0.02)
        for name, p in module.named_parameters(recurse=False):
            if name.endswith("c_proj.weight"):
                scaled(p, 0.02, n_layer)

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
