"""HF-style layer class picked from a dict by a config value with a default."""
import math

import torch.nn as nn
import torch.nn.functional as F


class EagerAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.qkv_proj = nn.Linear(hidden_size, 3 * hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, x):
        q, k, v = self.qkv_proj(x).chunk(3, dim=-1)
        return self.o_proj(((q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])).softmax(-1) @ v)


class SdpaAttention(EagerAttention):
    def forward(self, x):
        q, k, v = self.qkv_proj(x).chunk(3, dim=-1)
        return self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


ATTENTION_CLASSES = {"eager": EagerAttention, "sdpa": SdpaAttention}


class DecoderLayer(nn.Module):
    def __init__(self, hidden_size, attn_implementation="sdpa"):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(hidden_size)
        self.self_attn = ATTENTION_CLASSES[attn_implementation](hidden_size)
        self.post_attention_layernorm = nn.RMSNorm(hidden_size)
        self.gate_up_proj = nn.Linear(hidden_size, 8 * hidden_size, bias=False)
        self.down_proj = nn.Linear(4 * hidden_size, hidden_size, bias=False)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        gate, up = self.gate_up_proj(self.post_attention_layernorm(x)).chunk(2, dim=-1)
        return x + self.down_proj(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, vocab_size=32000, hidden_size=512, num_hidden_layers=16, attn_implementation="sdpa"):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList(
            [DecoderLayer(hidden_size, attn_implementation) for _ in range(num_hidden_layers)]
        )
        self.norm = nn.RMSNorm(hidden_size)
        for name, p in self.named_parameters():
            if p.dim() < 2:
                continue
            scaled = name.endswith(("o_proj.weight", "down_proj.weight"))
            nn.init.normal_(p, std=0.02 / math.sqrt(2 * num_hidden_layers) if scaled else 0.02)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
