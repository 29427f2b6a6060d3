"""A library model whose init is an explicit entry point (`init_weights()`) the constructor never calls.

Training scripts call `model.init_weights()` after building the model; the
entry point forgets the depth factor of the MLP output.
"""
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

    def init_weights(self, init_std):
        nn.init.trunc_normal_(self.wqkv.weight, mean=0.0, std=0.02)
        nn.init.trunc_normal_(self.wo.weight, mean=0.0, std=init_std)


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1 = nn.Linear(dim, 4 * dim, bias=False)
        self.w2 = nn.Linear(4 * dim, dim, bias=False)  # expect: INI001

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))

    def init_weights(self, init_std):
        nn.init.trunc_normal_(self.w1.weight, mean=0.0, std=0.02)
        nn.init.trunc_normal_(self.w2.weight, mean=0.0, std=0.02)


class TransformerBlock(nn.Module):
    def __init__(self, dim, n_layers):
        super().__init__()
        self.attention = Attention(dim)
        self.feed_forward = FeedForward(dim)
        self.attention_norm = nn.RMSNorm(dim)
        self.ffn_norm = nn.RMSNorm(dim)
        self.weight_init_std = 0.02 / (2 * n_layers) ** 0.5

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))

    def init_weights(self):
        self.attention.init_weights(self.weight_init_std)
        self.feed_forward.init_weights(self.weight_init_std)


class Transformer(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, n_layers=16):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([TransformerBlock(dim, n_layers) for _ in range(n_layers)])
        self.norm = nn.RMSNorm(dim)

    def init_weights(self):
        nn.init.normal_(self.tok_embeddings.weight)
        for layer in self.layers:
            layer.init_weights()

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.norm(h)
