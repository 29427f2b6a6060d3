"""Mixtral-style MoE: experts as 3-D parameters (`x @ self.down_proj[e]`), a router `gate`;
the experts' down projection left at 0.02."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Experts(nn.Module):
    def __init__(self, dim, hidden, num_experts):
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.empty(num_experts, dim, 2 * hidden))
        self.down_proj = nn.Parameter(torch.empty(num_experts, hidden, dim))  # expect: INI001

    def forward(self, x, expert_index):
        out = torch.zeros_like(x)
        for e in range(self.down_proj.shape[0]):
            mask = expert_index == e
            gate, up = (x[mask] @ self.gate_up_proj[e]).chunk(2, dim=-1)
            out[mask] = (F.silu(gate) * up) @ self.down_proj[e]
        return out


class SparseMoeBlock(nn.Module):
    def __init__(self, dim, hidden, num_experts=8):
        super().__init__()
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.experts = Experts(dim, hidden, num_experts)

    def forward(self, x):
        return self.experts(x, self.gate(x).argmax(dim=-1))


class DecoderLayer(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        self.post_attention_layernorm = nn.RMSNorm(dim)
        self.mlp = SparseMoeBlock(dim, hidden)

    def forward(self, x):
        q, k, v = self.qkv(self.input_layernorm(x)).chunk(3, dim=-1)
        x = x + self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp(self.post_attention_layernorm(x))


class MoeModel(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, hidden=1024, num_layers=8):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([DecoderLayer(dim, hidden) for _ in range(num_layers)])
        self.norm = nn.RMSNorm(dim)
        writer_std = 0.02 / math.sqrt(2 * num_layers)
        for layer in self.layers:
            nn.init.normal_(layer.qkv.weight, std=0.02)
            nn.init.normal_(layer.o_proj.weight, std=writer_std)
            nn.init.normal_(layer.mlp.gate.weight, std=0.02)
            nn.init.normal_(layer.mlp.experts.gate_up_proj, std=0.02)
            nn.init.normal_(layer.mlp.experts.down_proj, std=0.02)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
