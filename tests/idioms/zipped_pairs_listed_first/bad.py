"""The runner lists the zipped pairs of (attention, feed-forward) wrappers and their
keyword arguments first, then walks the list. Nothing scales either writer."""

import torch.nn as nn
import torch.nn.functional as F


class PreNorm(nn.Module):
    def __init__(self, width, fn):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fn = fn

    def forward(self, x, **kwargs):
        return self.fn(self.norm(x), **kwargs)


class SelfAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x, causal=True):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, is_causal=causal))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Runner(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, x, **kwargs):
        routed = [({"causal": True}, {}) for _ in self.layers]
        pairs = list(zip(self.layers, routed))
        for (attn, ff), (attn_kwargs, ff_kwargs) in pairs:
            x = x + attn(x, **attn_kwargs)
            x = x + ff(x, **ff_kwargs)
        return x


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, depth=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layers = nn.ModuleList([])
        for _ in range(depth):
            layers.append(nn.ModuleList([PreNorm(width, SelfAttention(width)), PreNorm(width, FeedForward(width))]))
        self.runner = Runner(layers)

    def forward(self, tokens):
        return self.runner(self.embed(tokens))
