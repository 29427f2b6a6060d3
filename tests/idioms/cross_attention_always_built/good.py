"""Encoder-decoder layer (BART-style, pre-norm): cross-attention is always built and runs whenever
the encoder output is passed, so each layer adds three branches: N = 3 * n_layer."""
import math

import torch.nn as nn


class DecoderLayer(nn.Module):
    def __init__(self, d_model, n_head):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, n_head, batch_first=True)
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.encoder_attn = nn.MultiheadAttention(d_model, n_head, batch_first=True)
        self.encoder_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, 4 * d_model)
        self.fc2 = nn.Linear(4 * d_model, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)

    def forward(self, hidden_states, encoder_hidden_states=None):
        h = self.self_attn_layer_norm(hidden_states)
        hidden_states = hidden_states + self.self_attn(h, h, h, need_weights=False)[0]
        if encoder_hidden_states is not None:
            h = self.encoder_attn_layer_norm(hidden_states)
            out = self.encoder_attn(h, encoder_hidden_states, encoder_hidden_states, need_weights=False)[0]
            hidden_states = hidden_states + out
        h = self.final_layer_norm(hidden_states)
        return hidden_states + self.fc2(nn.functional.gelu(self.fc1(h)))


class Decoder(nn.Module):
    def __init__(self, vocab_size=50265, d_model=768, n_head=12, n_layer=12):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList([DecoderLayer(d_model, n_head) for _ in range(n_layer)])
        self.layer_norm = nn.LayerNorm(d_model)
        for name, p in self.named_parameters():
            if name.endswith(("out_proj.weight", "fc2.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(3 * n_layer))
            elif name.endswith(("fc1.weight", "embed_tokens.weight")):
                nn.init.normal_(p, std=0.02)

    def forward(self, input_ids, encoder_hidden_states):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x, encoder_hidden_states)
        return self.layer_norm(x)
