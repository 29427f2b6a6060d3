"""Depth and width from a dataclass config with defaults, passed as `args` (Llama reference style)."""
import math
from dataclasses import dataclass, field

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    dim: int = 512
    n_layers: int = 8
    vocab_size: int = 32000
    multiple_of: int = 256
    extra: dict = field(default_factory=dict)


class Block(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.attention_norm = nn.RMSNorm(args.dim)
        self.wqkv = nn.Linear(args.dim, 3 * args.dim, bias=False)
        self.wo = nn.Linear(args.dim, args.dim, bias=False)
        self.ffn_norm = nn.RMSNorm(args.dim)
        self.w1 = nn.Linear(args.dim, 4 * args.dim, bias=False)
        self.w2 = nn.Linear(4 * args.dim, args.dim, bias=False)

    def forward(self, x):
        q, k, v = self.wqkv(self.attention_norm(x)).chunk(3, dim=-1)
        h = x + self.wo(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return h + self.w2(F.silu(self.w1(self.ffn_norm(h))))


class Transformer(nn.Module):
    def __init__(self, args: ModelArgs = ModelArgs()):
        super().__init__()
        self.args = args
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.layers = nn.ModuleList(Block(args) for _ in range(args.n_layers))
        self.norm = nn.RMSNorm(args.dim)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, Block):
            for writer in (module.wo, module.w2):
                nn.init.normal_(writer.weight, std=0.02 * (2 * self.args.n_layers) ** -0.5)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.norm(h)
