"""OLMo-style blocks built by a class-method factory (`Block.build(i, config)`);
the depth factor misses the 2."""
import math
from dataclasses import dataclass

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelConfig:
    d_model: int = 768
    n_layers: int = 12
    vocab_size: int = 50304
    block_type: str = "sequential"


class Block(nn.Module):
    def __init__(self, layer_id, config):
        super().__init__()
        self.layer_id = layer_id
        self.config = config
        self.attn_norm = nn.LayerNorm(config.d_model)
        self.att_proj = nn.Linear(config.d_model, 3 * config.d_model, bias=False)
        self.attn_out = nn.Linear(config.d_model, config.d_model, bias=False)
        self.ff_norm = nn.LayerNorm(config.d_model)
        self.ff_proj = nn.Linear(config.d_model, 4 * config.d_model, bias=False)
        self.ff_out = nn.Linear(4 * config.d_model, config.d_model, bias=False)

    def reset_parameters(self):
        std = 0.02 / math.sqrt(self.config.n_layers)  # expect: INI002
        for linear, s in ((self.att_proj, 0.02), (self.attn_out, std), (self.ff_proj, 0.02), (self.ff_out, std)):
            nn.init.trunc_normal_(linear.weight, std=s, a=-3 * s, b=3 * s)

    def forward(self, x):
        q, k, v = self.att_proj(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.ff_out(F.gelu(self.ff_proj(self.ff_norm(x))))

    @classmethod
    def build(cls, layer_id, config):
        if config.block_type == "sequential":
            return cls(layer_id, config)
        raise NotImplementedError(config.block_type)


class OLMo(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.d_model)
        self.blocks = nn.ModuleList([Block.build(i, config) for i in range(config.n_layers)])
        self.ln_f = nn.LayerNorm(config.d_model)
        nn.init.normal_(self.wte.weight, std=0.02)
        for block in self.blocks:
            block.reset_parameters()

    def forward(self, input_ids):
        x = self.wte(input_ids)
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)
