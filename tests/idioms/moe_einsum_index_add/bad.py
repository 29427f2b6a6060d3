"""Token-choice MoE: experts as 3-D weights applied with einsum, outputs scattered with index_add_;
expert w2 unscaled."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GroupedExperts(nn.Module):
    def __init__(self, dim, hidden, num_experts):
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(num_experts, dim, hidden))
        self.w2 = nn.Parameter(torch.empty(num_experts, hidden, dim))  # expect: INI001

    def forward(self, x, expert, token):
        h = F.silu(torch.einsum("td,tdh->th", x[token], self.w1[expert]))
        out = torch.einsum("th,thd->td", h, self.w2[expert])
        return torch.zeros_like(x).index_add_(0, token, out)


class MoE(nn.Module):
    def __init__(self, dim, hidden, num_experts=8):
        super().__init__()
        self.router = nn.Linear(dim, num_experts, bias=False)
        self.experts = GroupedExperts(dim, hidden, num_experts)

    def forward(self, x):
        expert = self.router(x).argmax(dim=-1)
        return self.experts(x, expert, torch.arange(x.shape[0], device=x.device))


class Block(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.attention_norm = nn.RMSNorm(dim)
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.ffn_norm = nn.RMSNorm(dim)
        self.moe = MoE(dim, hidden)

    def forward(self, x):
        q, k, v = self.wqkv(self.attention_norm(x)).chunk(3, dim=-1)
        x = x + self.wo(F.scaled_dot_product_attention(q, k, v))
        return x + self.moe(self.ffn_norm(x))


class Model(nn.Module):
    def __init__(self, vocab_size=32000, dim=512, hidden=1024, n_layers=8):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([Block(dim, hidden) for _ in range(n_layers)])
        self.norm = nn.RMSNorm(dim)
        self.init_weights(n_layers)

    def init_weights(self, n_layers):
        for name, p in self.named_parameters():
            if "norm" in name:
                continue
            scaled = name.endswith("wo.weight")
            nn.init.trunc_normal_(p, std=0.02 / math.sqrt(2 * n_layers) if scaled else 0.02)

    def forward(self, tokens):
        x = self.tok_embeddings(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
