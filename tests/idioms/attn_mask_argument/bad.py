"""A block whose attention takes an `attn_mask` tensor argument built by the model;
only the MLP projection is scaled."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)  # expect: INI001

    def forward(self, x, attn_mask):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_head, c // self.n_head).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    def __init__(self, dim, n_head):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, n_head)
        self.norm2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim, bias=False)
        self.proj = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x, attn_mask):
        x = x + self.attn(self.norm1(x), attn_mask)
        return x + self.proj(F.gelu(self.fc(self.norm2(x))))


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, dim=768, n_head=12, n_layer=12, block_size=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList([Block(dim, n_head) for _ in range(n_layer)])
        self.register_buffer("mask", torch.tril(torch.ones(block_size, block_size, dtype=torch.bool)))
        for name, p in self.named_parameters():
            if p.dim() < 2:
                continue
            scaled = name.endswith(".proj.weight") and ".attn." not in name
            std = 0.02 / math.sqrt(2 * n_layer) if scaled else 0.02
            nn.init.normal_(p, std=std)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.wte(idx)
        for block in self.blocks:
            x = block(x, self.mask[:t, :t])
        return x
