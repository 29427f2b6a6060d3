"""Falcon-style block that adds branches with a `dropout_add` helper instead of `+`; the MLP output is not scaled."""
import math

import torch.nn as nn
import torch.nn.functional as F


def dropout_add(x, residual, prob, training):
    return residual + F.dropout(x, p=prob, training=training)


class Block(nn.Module):
    def __init__(self, hidden_size, dropout=0.0):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(hidden_size)
        self.query_key_value = nn.Linear(hidden_size, 3 * hidden_size, bias=False)
        self.dense = nn.Linear(hidden_size, hidden_size, bias=False)
        self.post_attention_layernorm = nn.LayerNorm(hidden_size)
        self.dense_h_to_4h = nn.Linear(hidden_size, 4 * hidden_size, bias=False)
        self.dense_4h_to_h = nn.Linear(4 * hidden_size, hidden_size, bias=False)  # expect: INI001
        self.dropout = dropout

    def forward(self, hidden_states):
        q, k, v = self.query_key_value(self.input_layernorm(hidden_states)).chunk(3, dim=-1)
        attn = self.dense(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        hidden_states = dropout_add(attn, hidden_states, self.dropout, self.training)
        mlp = self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(self.post_attention_layernorm(hidden_states))))
        return dropout_add(mlp, hidden_states, self.dropout, self.training)


class Model(nn.Module):
    def __init__(self, vocab_size=65024, hidden_size=1024, num_hidden_layers=24):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden_size)
        self.h = nn.ModuleList([Block(hidden_size) for _ in range(num_hidden_layers)])
        self.ln_f = nn.LayerNorm(hidden_size)
        self.num_hidden_layers = num_hidden_layers
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, Block):
            std = 0.02 / math.sqrt(2 * self.num_hidden_layers)
            nn.init.normal_(module.dense.weight, std=std)

    def forward(self, input_ids):
        x = self.word_embeddings(input_ids)
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
