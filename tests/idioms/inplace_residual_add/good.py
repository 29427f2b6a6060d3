"""A pre-norm block that writes its residual adds as calls: the attention output takes the
stream in place (`attn_out.add_(x)`), and the feed-forward output is added with
`torch.add(..., out=...)`. Both output projections write into the stream, and the init
scales them for the two adds of each layer."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width, bias=False)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in self.qkv(x).chunk(3, dim=-1))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, n, d))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc_in = nn.Linear(width, 4 * width)
        self.fc_out = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.fc_out(F.gelu(self.fc_in(x)))


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_attn = nn.LayerNorm(width)
        self.attention = SelfAttention(width)
        self.pre_ff = nn.LayerNorm(width)
        self.ff = FeedForward(width)

    def forward(self, x):
        mixed = self.attention(self.pre_attn(x))
        mixed.add_(x)
        out = torch.empty_like(mixed)
        torch.add(mixed, self.ff(self.pre_ff(mixed)), out=out)
        return out


class Decoder(nn.Module):
    def __init__(self, vocab=512, width=96, n_layers=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layers)])
        self.final_norm = nn.LayerNorm(width)
        self.lm_head = nn.Linear(width, vocab, bias=False)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for name, p in self.named_parameters():
            if name.endswith(("proj.weight", "fc_out.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.final_norm(x))
