"""The stack is handed its layer, and the layer its attention and MLP, built elsewhere (a
config system or a trainer), typed with their classes; the parts zero their writers."""
import copy

import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, heads: int, d_model: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.output = nn.Linear(d_model, d_model)
        nn.init.zeros_(self.output.weight)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.output(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.layer1 = nn.Linear(d_model, d_ff)
        self.layer2 = nn.Linear(d_ff, d_model)
        nn.init.zeros_(self.layer2.weight)

    def forward(self, x):
        return self.layer2(F.relu(self.layer1(x)))


class Layer(nn.Module):
    def __init__(self, d_model: int, attn: Attention, feed_forward: FeedForward):
        super().__init__()
        self.size = d_model
        self.attn = attn
        self.feed_forward = feed_forward
        self.norm_attn = nn.LayerNorm(d_model)
        self.norm_ff = nn.LayerNorm(d_model)

    def forward(self, x):
        x = x + self.attn(self.norm_attn(x))
        return x + self.feed_forward(self.norm_ff(x))


class Encoder(nn.Module):
    def __init__(self, layer: Layer, n_layers: int):
        super().__init__()
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(n_layers)])
        self.norm = nn.LayerNorm(layer.size)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
