"""A training wrapper whose external base keeps the model, as in good.py, but the MLP
writer misses the depth factor: the model is still checked as a model of its own."""

import math

import torch.nn as nn
import torch.nn.functional as F
from trainkit import TrainableWrapper


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_attn = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attn_out = nn.Linear(width, width)
        self.pre_ff = nn.LayerNorm(width)
        self.expand = nn.Linear(width, 4 * width)
        self.contract = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.pre_attn(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.contract(F.gelu(self.expand(self.pre_ff(x))))


class Decoder(nn.Module):
    def __init__(self, vocab=1000, width=256, n_layers=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(width)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                writer = name.endswith("attn_out.weight")
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layers) if writer else 0.02)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.final_norm(x)


class TrainableDecoder(TrainableWrapper):
    def __init__(self, learning_rate=3e-4, **model_options):
        model = Decoder(**model_options)
        super().__init__(model=model, learning_rate=learning_rate)

    def forward(self, batch):
        return self.model(batch["tokens"])
