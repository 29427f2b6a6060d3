"""HF GPT-2-style block with cross-attention that is off by default: two adds per block, 2L."""
import math

import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, x, context=None):
        q, k, v = self.c_attn(x).chunk(3, dim=-1)
        return self.c_proj(q * k.sigmoid() + v)


class MLP(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.c_proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        return self.c_proj(nn.functional.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, n_embd, add_cross_attention=False):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = Attention(n_embd)
        if add_cross_attention:
            self.crossattention = Attention(n_embd)
            self.ln_cross_attn = nn.LayerNorm(n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(self, hidden_states, encoder_hidden_states=None):
        residual = hidden_states
        hidden_states = self.attn(self.ln_1(hidden_states)) + residual
        if encoder_hidden_states is not None:
            residual = hidden_states
            hidden_states = self.crossattention(self.ln_cross_attn(hidden_states), encoder_hidden_states) + residual
        residual = hidden_states
        return residual + self.mlp(self.ln_2(hidden_states))


class GPT2Model(nn.Module):
    def __init__(self, vocab_size=50257, n_embd=768, n_layer=12, add_cross_attention=False):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.h = nn.ModuleList([Block(n_embd, add_cross_attention) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.n_layer = n_layer
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, (Attention, MLP)):
            nn.init.normal_(module.c_proj.weight, mean=0.0, std=0.02 / math.sqrt(2 * self.n_layer))

    def forward(self, input_ids, encoder_hidden_states=None):
        x = self.wte(input_ids)
        for block in self.h:
            x = block(x, encoder_hidden_states)
        return self.ln_f(x)
