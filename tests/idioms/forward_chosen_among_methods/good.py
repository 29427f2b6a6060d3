"""bad.py's decoder scales its writers by 1/sqrt(2 * n_layers) after building them."""

import math

import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, h):
        b, t, c = h.shape
        q, k, v = self.qkv(h).view(b, t, 3, self.heads, c // self.heads).transpose(1, 3).unbind(2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.expand = nn.Linear(width, 4 * width)
        self.contract = nn.Linear(4 * width, width)

    def forward(self, h):
        return self.contract(F.silu(self.expand(h)))


class DecoderLayer(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.norm_in = nn.LayerNorm(settings.width)
        self.attention = SelfAttention(settings.width, settings.heads)
        self.norm_mid = nn.LayerNorm(settings.width)
        self.feed_forward = FeedForward(settings.width)
        if settings.parallel:
            self._forward = self._forward_parallel
        elif settings.norm_after:
            self._forward = self._forward_norm_after
        else:
            self._forward = self._forward_sequential

    def _forward_parallel(self, x, normed, attended):
        return x + attended + self.feed_forward(normed)

    def _forward_norm_after(self, x, normed, attended):
        x = self.norm_mid(x + attended)
        return self.norm_in(x + self.feed_forward(x))

    def _forward_sequential(self, x, normed, attended):
        attended.add_(x)
        return attended + self.feed_forward(self.norm_mid(attended))

    def forward(self, x):
        normed = self.norm_in(x)
        return self._forward(x, normed, self.attention(normed))


class Decoder(nn.Module):
    def __init__(self, settings):
        super().__init__()
        self.embed = nn.Embedding(settings.vocab, settings.width)
        self.layers = nn.ModuleList([DecoderLayer(settings) for _ in range(settings.n_layers)])
        self.norm = nn.LayerNorm(settings.width)
        for name, param in self.named_parameters():
            if name.endswith(("proj.weight", "contract.weight")):
                nn.init.normal_(param, mean=0.0, std=0.02 / math.sqrt(2 * settings.n_layers))

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
