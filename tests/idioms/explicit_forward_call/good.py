"""Llama-style block that calls its sublayers' forward explicitly; writers scaled by 1/sqrt(2L)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        q, k, v = self.wqkv(x).chunk(3, dim=-1)
        return self.wo(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1 = nn.Linear(dim, 4 * dim, bias=False)
        self.w2 = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


class TransformerBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention = Attention(dim)
        self.feed_forward = FeedForward(dim)
        self.attention_norm = nn.RMSNorm(dim)
        self.ffn_norm = nn.RMSNorm(dim)

    def forward(self, x):
        h = x + self.attention.forward(self.attention_norm(x))
        return h + self.feed_forward.forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, n_layers=8):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(TransformerBlock(dim) for _ in range(n_layers))
        self.norm = nn.RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)
        for name, p in self.named_parameters():
            if p.dim() < 2 or "norm" in name:
                continue
            std = 0.02 / math.sqrt(2 * n_layers) if name.endswith(("wo.weight", "w2.weight")) else 0.02
            nn.init.normal_(p, mean=0.0, std=std)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))
