"""Pre-norm blocks, each adding its attention and MLP in its own `forward`; the owner's loop hands
each block what the one before returned and normalises once, after the loop. 2 * n_layer adds
pile up, and the output projections at 0.02 have no depth factor."""

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.norm_2 = nn.LayerNorm(width)
        self.mlp = FeedForward(width)

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.mlp(self.norm_2(x))


class Encoder(nn.Module):
    def __init__(self, width=64, n_layer=12):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layer)])
        self.norms = nn.ModuleList([nn.LayerNorm(width) for _ in range(n_layer)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)

    def forward(self, x):
        hidden_states = []
        for i, layer in enumerate(self.layers):
            x = layer(x)
            hidden_states.append(self.norms[i](x))
        return self.norms[-1](x), hidden_states
