"""The blocks get their norms from a helper that probes the library (`if hasattr(nn,
"RMSNorm")`) and falls back to a class written inside it: PyTorch has the layer, so the blocks
are pre-norm, and the writers at 0.02 lack the depth factor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_norm(width, eps=1e-6):
    if hasattr(nn, "RMSNorm"):
        return nn.RMSNorm(width, eps=eps)

    class Fallback(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(width))

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * self.scale

    return Fallback()


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_mix = make_norm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001
        self.pre_ff = make_norm(width)
        self.fc_in = nn.Linear(width, 4 * width)
        self.fc_out = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.pre_mix(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.fc_out(F.silu(self.fc_in(self.pre_ff(x))))


class Decoder(nn.Module):
    def __init__(self, vocab=512, width=128, n_layers=8):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layers)])
        self.out_norm = make_norm(width)
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, ids):
        x = self.tokens(ids)
        for layer in self.layers:
            x = layer(x)
        return self.out_norm(x)
