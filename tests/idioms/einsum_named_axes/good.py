"""Weights kept as bare matrices and applied with fancy_einsum's `einsum`, axes named by words
(the interpretability-library style): the attention's output matrix and the MLP's second matrix
write the residual stream, each drawn with std 0.02/sqrt(2 * n_layers)."""
import math

import torch
import torch.nn as nn
from fancy_einsum import einsum


class Attention(nn.Module):
    def __init__(self, d_model, n_heads, n_layers):
        super().__init__()
        d_head = d_model // n_heads
        self.W_QKV = nn.Parameter(torch.empty(3, n_heads, d_model, d_head))
        self.W_O = nn.Parameter(torch.empty(n_heads, d_head, d_model))
        self.b_O = nn.Parameter(torch.zeros(d_model))
        nn.init.normal_(self.W_QKV, std=0.02)
        nn.init.normal_(self.W_O, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, x):
        q, k, v = einsum("batch pos d_model, three head d_model d_head -> three batch pos head d_head", x, self.W_QKV)
        scores = einsum("batch q head d_head, batch k head d_head -> batch head q k", q, k)
        pattern = scores.softmax(dim=-1)
        z = einsum("batch head q k, batch k head d_head -> batch q head d_head", pattern, v)
        return einsum("batch pos head d_head, head d_head d_model -> batch pos d_model", z, self.W_O) + self.b_O


class MLP(nn.Module):
    def __init__(self, d_model, d_mlp, n_layers):
        super().__init__()
        self.W_in = nn.Parameter(torch.empty(d_model, d_mlp))
        self.W_out = nn.Parameter(torch.empty(d_mlp, d_model))
        nn.init.normal_(self.W_in, std=0.02)
        nn.init.normal_(self.W_out, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, x):
        post = torch.relu(einsum("batch pos d_model, d_model d_mlp -> batch pos d_mlp", x, self.W_in))
        return einsum("batch pos d_mlp, d_mlp d_model -> batch pos d_model", post, self.W_out)


class Block(nn.Module):
    def __init__(self, d_model, n_heads, n_layers):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = Attention(d_model, n_heads, n_layers)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = MLP(d_model, 4 * d_model, n_layers)

    def forward(self, resid_pre):
        resid_mid = resid_pre + self.attn(self.ln1(resid_pre))
        return resid_mid + self.mlp(self.ln2(resid_mid))


class Transformer(nn.Module):
    def __init__(self, d_model=256, n_heads=8, n_layers=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d_model, n_heads, n_layers) for _ in range(n_layers)])
        self.ln_final = nn.LayerNorm(d_model)

    def forward(self, residual):
        for block in self.blocks:
            residual = block(residual)
        return self.ln_final(residual)
