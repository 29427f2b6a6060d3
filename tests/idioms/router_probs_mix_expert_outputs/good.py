"""A token-choice MoE whose experts are 3-D weights run by a fused kernel; the
router's softmax probabilities mix the expert outputs in an einsum. The router
is no writer: the mix's content is the experts'. The attention output is
scaled by the depth."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from fused_kernels import grouped_mlp


class Experts(nn.Module):
    def __init__(self, width, hidden, n_experts):
        super().__init__()
        self.w_in = nn.Parameter(torch.empty(n_experts, hidden, width))
        self.w_out = nn.Parameter(torch.empty(n_experts, width, hidden))

    def forward(self, x, chosen, scores):
        return grouped_mlp(x, chosen, scores, self.w_in, self.w_out)


class MoE(nn.Module):
    def __init__(self, width, hidden, n_experts=8, top_k=2):
        super().__init__()
        self.width, self.top_k = width, top_k
        self.router = nn.Linear(width, n_experts, bias=False)
        self.experts = Experts(width, hidden, n_experts)

    def forward(self, x):
        batch, length = x.shape[:2]
        x = x.view(-1, self.width)
        scores = self.router(x)
        probs = F.softmax(scores, dim=-1)
        probs, chosen = torch.topk(probs, self.top_k, dim=-1)
        outs = self.experts(x, chosen, scores)
        mixed = torch.einsum("tki,tk->ti", outs, probs)
        return mixed.view(batch, length, self.width)


class Block(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.attn_norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.attn_out = nn.Linear(width, width)
        self.moe_norm = nn.LayerNorm(width)
        self.moe = MoE(width, hidden)

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.moe(self.moe_norm(x))


class Net(nn.Module):
    def __init__(self, vocab=1000, width=256, hidden=512, depth=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList([Block(width, hidden) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
        for block in self.blocks:
            nn.init.normal_(block.attn_out.weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return x
