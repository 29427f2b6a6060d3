"""The model takes its encoder either built or as the settings to build it from (`encoder: dict
| Encoder`, then `if isinstance(encoder, dict): encoder = Encoder(**encoder)`). The encoder
handed in built cannot be seen; the one built here can, and its writers keep PyTorch's default
init."""
from typing import Any

import torch.nn as nn
import torch.nn.functional as F


class Layer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln_attn = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.attn_out = nn.Linear(dim, dim)  # expect: INI001
        self.ln_mlp = nn.LayerNorm(dim)
        self.hidden = nn.Linear(dim, 4 * dim)
        self.mlp_out = nn.Linear(4 * dim, dim)  # expect: INI001

    def attend(self, h):
        b, n, d = h.shape
        q, k, v = self.qkv(h).view(b, n, 3, self.heads, d // self.heads).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        return self.attn_out(y.transpose(1, 2).reshape(b, n, d))

    def forward(self, x):
        x = x + self.attend(self.ln_attn(x))
        return x + self.mlp_out(F.gelu(self.hidden(self.ln_mlp(x))))


class Encoder(nn.Module):
    def __init__(self, *, dim, n_layers, heads=8):
        super().__init__()
        self.dim = dim
        self.layers = nn.ModuleList([Layer(dim, heads) for _ in range(n_layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Policy(nn.Module):
    def __init__(self, encoder: dict[str, Any] | Encoder, n_actions=6):
        super().__init__()
        if isinstance(encoder, dict):
            encoder = Encoder(**encoder)
        self.encoder = encoder
        self.to_actions = nn.Linear(encoder.dim, n_actions)

    def forward(self, x):
        return self.to_actions(self.encoder(x).mean(dim=1))
