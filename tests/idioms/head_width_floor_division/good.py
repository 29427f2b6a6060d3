"""A T5-style fan-in init: the head width is `hidden // heads`, and the output projection gets
std factor * (heads * head_width) ** -0.5, the down projection factor * (4 * hidden) ** -0.5,
each divided by the depth factor of the stack's 2 * layers residual adds."""

import math

import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.heads = config.heads
        self.qkv = nn.Linear(config.hidden, 3 * config.hidden, bias=False)
        self.out = nn.Linear(config.hidden, config.hidden, bias=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        return self.out(y.transpose(1, 2).reshape(b, t, c))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wi = nn.Linear(config.hidden, 4 * config.hidden, bias=False)
        self.wo = nn.Linear(4 * config.hidden, config.hidden, bias=False)

    def forward(self, x):
        return self.wo(F.relu(self.wi(x)))


class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm1 = nn.LayerNorm(config.hidden)
        self.attn = SelfAttention(config)
        self.norm2 = nn.LayerNorm(config.hidden)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([Layer(config) for _ in range(config.layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        factor = self.config.init_factor
        hidden = self.config.hidden
        heads = self.config.heads
        head_width = hidden // heads
        depth_factor = math.sqrt(2 * self.config.layers)
        if isinstance(module, SelfAttention):
            nn.init.normal_(module.qkv.weight, std=factor * (hidden * head_width) ** -0.5)
            nn.init.normal_(module.out.weight, std=factor * (heads * head_width) ** -0.5 / depth_factor)
        elif isinstance(module, MLP):
            nn.init.normal_(module.wi.weight, std=factor * hidden**-0.5)
            nn.init.normal_(module.wo.weight, std=factor * (4 * hidden) ** -0.5 / depth_factor)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
