"""diffusers-style attention whose computation lives in a processor object; to_out[0] scaled."""
import math

import torch.nn as nn
import torch.nn.functional as F


class AttnProcessor:
    def __call__(self, attn, hidden_states):
        q, k, v = attn.to_q(hidden_states), attn.to_k(hidden_states), attn.to_v(hidden_states)
        hidden_states = F.scaled_dot_product_attention(q, k, v)
        hidden_states = attn.to_out[0](hidden_states)
        return attn.to_out[1](hidden_states)


class Attention(nn.Module):
    def __init__(self, dim, processor=None):
        super().__init__()
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.to_out = nn.ModuleList([nn.Linear(dim, dim), nn.Dropout(0.0)])
        self.processor = processor if processor is not None else AttnProcessor()

    def forward(self, hidden_states):
        return self.processor(self, hidden_states)


class TransformerBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn1 = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, hidden_states):
        hidden_states = self.attn1(self.norm1(hidden_states)) + hidden_states
        return self.ff(self.norm2(hidden_states)) + hidden_states


class Transformer2DModel(nn.Module):
    def __init__(self, dim=512, num_layers=12):
        super().__init__()
        self.proj_in = nn.Linear(dim, dim)
        self.transformer_blocks = nn.ModuleList([TransformerBlock(dim) for _ in range(num_layers)])
        self.norm_out = nn.LayerNorm(dim)
        std = 0.02 / math.sqrt(2 * num_layers)
        for block in self.transformer_blocks:
            nn.init.normal_(block.attn1.to_out[0].weight, std=std)
            nn.init.normal_(block.ff[2].weight, std=std)

    def forward(self, x):
        x = self.proj_in(x)
        for block in self.transformer_blocks:
            x = block(x)
        return self.norm_out(x)
