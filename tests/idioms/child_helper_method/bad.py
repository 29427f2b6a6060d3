"""Attention whose output is mixed with a memory read by a helper method of a child module whose
class is in the file (`self.memory.mix_into(out, q)`): the helper hands back the output it was
given, or a gated blend of it. Only the feed-forward writer is depth-scaled."""
import math

import torch
import torch.nn as nn


class Memory(nn.Module):
    def __init__(self, dim, gated=True):
        super().__init__()
        self.gated = gated
        self.gate = nn.Parameter(torch.zeros(dim))

    def mix_into(self, out, q):
        if not self.gated:
            return out
        gates = self.gate.sigmoid()
        read = q.softmax(dim=-1)
        return out * gates + read * (1.0 - gates)


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.memory = Memory(dim)
        self.to_out = nn.Linear(dim, dim, bias=False)  # expect: INI001

    def forward(self, x):
        x = self.norm(x)
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        out = (q @ k.transpose(-1, -2)).softmax(dim=-1) @ v
        out = self.memory.mix_into(out, q)
        return self.to_out(out)


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * 4), nn.GELU())
        self.proj_out = nn.Linear(dim * 4, dim)

    def forward(self, x):
        return self.proj_out(self.net(x))


class Transformer(nn.Module):
    def __init__(self, num_tokens=256, dim=256, depth=8):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.layers = nn.ModuleList([nn.ModuleList([Attention(dim), FeedForward(dim)]) for _ in range(depth)])
        self.to_logits = nn.Linear(dim, num_tokens)
        for name, param in self.named_parameters():
            if param.dim() < 2:
                continue
            std = 0.02 / math.sqrt(2 * depth) if name.endswith("proj_out.weight") else 0.02
            nn.init.normal_(param, std=std)

    def forward(self, tokens):
        x = self.token_emb(tokens)
        for attn, ff in self.layers:
            x = attn(x) + x
            x = ff(x) + x
        return self.to_logits(x)
