"""A depth-scaled init with an unknown helper, then a certain generic redraw of every linear."""
import math

import torch.nn as nn
import torch.nn.functional as F
from somewhere_else import custom_init


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(d)
        self.qkv_proj = nn.Linear(d, 3 * d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)  # expect: INI001
        self.post_attention_layernorm = nn.LayerNorm(d)
        self.up_proj = nn.Linear(d, 4 * d, bias=False)
        self.down_proj = nn.Linear(4 * d, d, bias=False)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv_proj(self.input_layernorm(x)).chunk(3, dim=-1)
        x = x + self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down_proj(F.silu(self.up_proj(self.post_attention_layernorm(x))))


class Model(nn.Module):
    def __init__(self, vocab_size=32000, hidden_size=512, num_hidden_layers=12):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([Block(hidden_size) for _ in range(num_hidden_layers)])
        self.norm = nn.LayerNorm(hidden_size)
        for layer in self.layers:
            for writer in (layer.o_proj, layer.down_proj):
                custom_init(writer.weight, std=0.02 / math.sqrt(2 * num_hidden_layers))
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
