"""The model of bad.py with its two writers drawn again, scaled for depth (two adds per layer).

Layers built with `torch.nn.utils.skip_init(nn.Linear, ...)`: allocated without their default
init (as eole builds every linear), then the model draws every parameter from uniform(-0.1,
0.1) in its own init. The output projections of the attention and of the MLP write into a
pre-norm stream (the attention's output is added in place: `out.add_(x)`), and nothing scales
them for depth."""

import math

import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import skip_init


class SelfAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = skip_init(nn.Linear, width, 3 * width)
        self.final_linear = skip_init(nn.Linear, in_features=width, out_features=width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.final_linear(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up_proj = skip_init(nn.Linear, width, 4 * width)
        self.down_proj = skip_init(nn.Linear, 4 * width, width)

    def forward(self, x):
        return self.down_proj(F.silu(self.up_proj(x)))


class DecoderLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(width)
        self.self_attn = SelfAttention(width)
        self.post_attention_layernorm = nn.LayerNorm(width)
        self.mlp = MLP(width)

    def forward(self, layer_in):
        out = self.self_attn(self.input_layernorm(layer_in))
        out.add_(layer_in)
        return out + self.mlp(self.post_attention_layernorm(out))


class Decoder(nn.Module):
    def __init__(self, width=64, layers=12):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayer(width) for _ in range(layers)])
        self.init_weights()

    def init_weights(self):
        for param in self.parameters():
            param.data.uniform_(-0.1, 0.1)
        for layer in self.layers:
            for writer in (layer.self_attn.final_linear, layer.mlp.down_proj):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * len(self.layers)))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
