"""A pre-norm decoder with an xformers-style SwiGLU whose depth scaling hits the wrong matrix.

initlint: INI001 at line 36

In this SwiGLU the output projection is `w3`: `w3(silu(w1(x)) * w2(x))`. The init loop
scales names ending in `w2.weight`, the Llama convention, where `w2` is the down projection.
Here `w2` is an input-side projection, so the MLP's residual writer `w3` keeps the generic
std 0.02. The attention writer `wo` is scaled correctly.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class DecoderConfig:
    vocab_size: int = 32768
    context_length: int = 2048
    d_model: int = 1024
    n_heads: int = 16
    n_layers: int = 24
    ffn_hidden: int = 2816


class SwiGLU(nn.Module):
    """Gated feed-forward in the xformers naming: w1 gate, w2 value, w3 output."""

    def __init__(self, d_model: int, hidden: int):
        super().__init__()
        self.w1 = nn.Linear(d_model, hidden, bias=False)
        self.w2 = nn.Linear(d_model, hidden, bias=False)
        self.w3 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gated = F.silu(self.w1(x)) * self.w2(x)
        return self.w3(gated)


class SelfAttention(nn.Module):
    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.n_heads = config.n_heads
        self.wqkv = nn.Linear(config.d_model, 3 * config.d_model, bias=False)
        self.wo = nn.Linear(config.d_model, config.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq_len, d_model = x.shape
        qkv = self.wqkv(x).view(batch, seq_len, 3, self.n_heads, d_model // self.n_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(out.transpose(1, 2).reshape(batch, seq_len, d_model))


class DecoderLayer(nn.Module):
    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.attn_norm = nn.LayerNorm(config.d_model)
        self.attn = SelfAttention(config)
        self.mlp_norm = nn.LayerNorm(config.d_model)
        self.mlp = SwiGLU(config.d_model, config.ffn_hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x))
        x = x + self.mlp(self.mlp_norm(x))
        return x


class Decoder(nn.Module):
    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.d_model)
        self.pos_emb = nn.Embedding(config.context_length, config.d_model)
        self.layers = nn.ModuleList([DecoderLayer(config) for _ in range(config.n_layers)])
        self.final_norm = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        residual_std = 0.02 / math.sqrt(2 * self.config.n_layers)
        for name, param in self.named_parameters():
            if param.dim() < 2:
                continue  # norm gains and biases keep their defaults
            if name.endswith("wo.weight") or name.endswith("w2.weight"):
                nn.init.normal_(param, mean=0.0, std=residual_std)
            else:
                nn.init.normal_(param, mean=0.0, std=0.02)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.tok_emb(tokens) + self.pos_emb(positions)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.final_norm(x))
