"""Llama-reference-style model-parallel layers with `init_method=lambda x: x`, then
initialised by the model: the 2L-scaled writers are right.
"""
from fairscale.nn.model_parallel.layers import ColumnParallelLinear, RowParallelLinear
import math

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.wqkv = ColumnParallelLinear(dim, 3 * dim, bias=False, gather_output=False, init_method=lambda x: x)
        self.wo = RowParallelLinear(dim, dim, bias=False, input_is_parallel=True, init_method=lambda x: x)

    def forward(self, x):
        q, k, v = self.wqkv(x).chunk(3, dim=-1)
        return self.wo(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = ColumnParallelLinear(dim, hidden_dim, bias=False, gather_output=False, init_method=lambda x: x)
        self.w2 = RowParallelLinear(hidden_dim, dim, bias=False, input_is_parallel=True, init_method=lambda x: x)
        self.w3 = ColumnParallelLinear(dim, hidden_dim, bias=False, gather_output=False, init_method=lambda x: x)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention = Attention(dim)
        self.feed_forward = FeedForward(dim, 4 * dim)
        self.attention_norm = nn.RMSNorm(dim)
        self.ffn_norm = nn.RMSNorm(dim)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    def __init__(self, vocab_size=32000, dim=1024, n_layers=16):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = torch.nn.ModuleList([TransformerBlock(dim) for _ in range(n_layers)])
        self.norm = nn.RMSNorm(dim)
        for name, p in self.named_parameters():
            if p.dim() < 2:
                continue
            writer = name.endswith(("wo.weight", "w2.weight"))
            nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layers) if writer else 0.02)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.norm(h)
