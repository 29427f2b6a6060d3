"""MiniCPM-style depth muP: unscaled writers, each branch times scale_depth / sqrt(L) at run time."""
import math

import torch.nn as nn
import torch.nn.functional as F


class DecoderLayer(nn.Module):
    def __init__(self, hidden_size, scale_depth, num_hidden_layers):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(hidden_size)
        self.qkv_proj = nn.Linear(hidden_size, 3 * hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        self.post_attention_layernorm = nn.RMSNorm(hidden_size)
        self.up_proj = nn.Linear(hidden_size, 4 * hidden_size, bias=False)
        self.down_proj = nn.Linear(4 * hidden_size, hidden_size, bias=False)
        self.scale_depth = scale_depth
        self.num_hidden_layers = num_hidden_layers

    def forward(self, h):
        q, k, v = self.qkv_proj(self.input_layernorm(h)).chunk(3, dim=-1)
        attn = self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        h = h + attn * (self.scale_depth / math.sqrt(self.num_hidden_layers))
        mlp = self.down_proj(F.silu(self.up_proj(self.post_attention_layernorm(h))))
        h = h + mlp * (self.scale_depth / math.sqrt(self.num_hidden_layers))
        return h


class MiniModel(nn.Module):
    def __init__(self, vocab_size=122753, hidden_size=1536, num_hidden_layers=40, scale_depth=1.4):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList(
            [DecoderLayer(hidden_size, scale_depth, num_hidden_layers) for _ in range(num_hidden_layers)]
        )
        self.norm = nn.RMSNorm(hidden_size)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.1)

    def forward(self, input_ids):
        h = self.embed_tokens(input_ids)
        for layer in self.layers:
            h = layer(h)
        return self.norm(h)
