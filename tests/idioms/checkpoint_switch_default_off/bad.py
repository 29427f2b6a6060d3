"""A pre-norm FFN that adds its input back itself and runs its layers through a switch stored in
`__init__`: gradient checkpointing, or a plain call by default (`use_ckpting=[]` at every level,
the root's included). The writer gets std 0.02."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class FeedForward(nn.Module):
    def __init__(self, dim, use_ckpting=[]):
        super().__init__()
        self.layer_norm = nn.LayerNorm(dim)
        self.w_1 = nn.Linear(dim, 4 * dim)
        self.w_2 = nn.Linear(4 * dim, dim)  # expect: INI001
        self.maybe_ckpt = checkpoint if "ffn" in use_ckpting else lambda f, x: f(x)

    def forward(self, x):
        inter = self.maybe_ckpt(self.w_1, self.layer_norm(x))
        inter = self.maybe_ckpt(self.w_2, torch.relu(inter))
        return inter + x


class Encoder(nn.Module):
    def __init__(self, dim=64, num_layers=6, use_ckpting=[]):
        super().__init__()
        self.layers = nn.ModuleList([FeedForward(dim, use_ckpting=use_ckpting) for _ in range(num_layers)])
        self.layer_norm = nn.LayerNorm(dim)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.02)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.layer_norm(x)
