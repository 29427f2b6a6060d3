"""Experts stored as 3-D parameters and run by a fused kernel the linter cannot
read: the down projection, named as one, writes the branch. It starts at zero."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from fused_kernels import grouped_swiglu


class Experts(nn.Module):
    def __init__(self, width, hidden, n_experts):
        super().__init__()
        self.gate_up = nn.Parameter(torch.empty(n_experts, 2 * hidden, width))
        self.down_proj = nn.Parameter(torch.empty(n_experts, width, hidden))
        nn.init.normal_(self.gate_up, std=0.02)
        nn.init.zeros_(self.down_proj)

    def forward(self, x, chosen):
        return grouped_swiglu(x, chosen, self.gate_up, self.down_proj)


class Block(nn.Module):
    def __init__(self, width, hidden, n_experts=8):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attn_out = nn.Linear(width, width)
        self.moe_norm = nn.LayerNorm(width)
        self.router = nn.Linear(width, n_experts, bias=False)
        self.experts = Experts(width, hidden, n_experts)

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        h = self.moe_norm(x)
        return x + self.experts(h, self.router(h).argmax(dim=-1))


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, hidden=512, depth=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width, hidden) for _ in range(depth)])
        for block in self.blocks:
            nn.init.zeros_(block.attn_out.weight)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
