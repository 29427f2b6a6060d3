"""DeepSeek-style decoder: the FFN is an MoE or a dense MLP, chosen by a config flag (default dense)."""
import math
from dataclasses import dataclass

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab_size: int = 32000
    hidden_size: int = 512
    num_hidden_layers: int = 16
    use_moe: bool = False
    n_routed_experts: int = 4


class MLP(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.up_proj = nn.Linear(hidden_size, 4 * hidden_size, bias=False)
        self.down_proj = nn.Linear(4 * hidden_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.up_proj(x)))


class MoE(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.gate = nn.Linear(config.hidden_size, config.n_routed_experts, bias=False)
        self.experts = nn.ModuleList([MLP(config.hidden_size) for _ in range(config.n_routed_experts)])

    def forward(self, x):
        weights = self.gate(x).softmax(dim=-1)
        return sum(weights[..., i : i + 1] * expert(x) for i, expert in enumerate(self.experts))


class DecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(config.hidden_size)
        self.attn = nn.MultiheadAttention(config.hidden_size, 8, batch_first=True, bias=False)
        self.o_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.post_attention_layernorm = nn.RMSNorm(config.hidden_size)
        self.mlp = MoE(config) if config.use_moe else MLP(config.hidden_size)

    def forward(self, x):
        h = self.input_layernorm(x)
        x = x + self.o_proj(self.attn(h, h, h, need_weights=False)[0])
        return x + self.mlp(self.post_attention_layernorm(x))


class Model(nn.Module):
    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([DecoderLayer(config) for _ in range(config.num_hidden_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, (DecoderLayer, MLP)):
            writer = module.o_proj if isinstance(module, DecoderLayer) else module.down_proj
            nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * self.config.num_hidden_layers))

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return x
