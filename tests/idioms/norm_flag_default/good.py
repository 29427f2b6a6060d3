"""OPT-style decoder: norm placement chosen by `do_layer_norm_before` (default True: pre-norm)."""
import math

import torch.nn as nn


class DecoderLayer(nn.Module):
    def __init__(self, d_model, do_layer_norm_before=True):
        super().__init__()
        self.do_layer_norm_before = do_layer_norm_before
        self.self_attn = nn.MultiheadAttention(d_model, 8, batch_first=True)
        self.out_proj = nn.Linear(d_model, d_model)
        self.self_attn_layer_norm = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, 4 * d_model)
        self.fc2 = nn.Linear(4 * d_model, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)

    def forward(self, x):
        residual = x
        if self.do_layer_norm_before:
            x = self.self_attn_layer_norm(x)
        x = self.out_proj(self.self_attn(x, x, x, need_weights=False)[0])
        x = residual + x
        if not self.do_layer_norm_before:
            x = self.self_attn_layer_norm(x)
        residual = x
        if self.do_layer_norm_before:
            x = self.final_layer_norm(x)
        x = residual + self.fc2(nn.functional.relu(self.fc1(x)))
        if not self.do_layer_norm_before:
            x = self.final_layer_norm(x)
        return x


class Decoder(nn.Module):
    def __init__(self, vocab_size=50272, d_model=768, num_layers=12):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList([DecoderLayer(d_model) for _ in range(num_layers)])
        for name, p in self.named_parameters():
            if name.endswith(("out_proj.weight", "fc2.weight")) and "self_attn." not in name:
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * num_layers))
            elif name.endswith(".weight") and "norm" not in name:
                nn.init.normal_(p, std=0.02)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return x
