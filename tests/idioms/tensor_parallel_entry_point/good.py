"""nanotron-style model: tensor-parallel linears, and an explicit `init_model_randomly(config)`
the trainer calls, which finds each parameter's module with `get_submodule` and draws the
row-parallel (output) linears with sigma / sqrt(2 * num_layers)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from nanotron.parallel.tensor_parallel.nn import (
    TensorParallelColumnLinear,
    TensorParallelEmbedding,
    TensorParallelRowLinear,
)


class Block(nn.Module):
    def __init__(self, width, tp_pg):
        super().__init__()
        self.attn_norm = nn.RMSNorm(width)
        self.qkv = TensorParallelColumnLinear(width, 3 * width, pg=tp_pg, mode=None, bias=False)
        self.attn_out = TensorParallelRowLinear(width, width, pg=tp_pg, mode=None, bias=False)
        self.mlp_norm = nn.RMSNorm(width)
        self.up = TensorParallelColumnLinear(width, 4 * width, pg=tp_pg, mode=None, bias=False)
        self.down = TensorParallelRowLinear(4 * width, width, pg=tp_pg, mode=None, bias=False)

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down(F.gelu(self.up(self.mlp_norm(x))))


class Model(nn.Module):
    def __init__(self, tp_pg, vocab=1000, width=256, num_layers=8):
        super().__init__()
        self.embed = TensorParallelEmbedding(vocab, width, pg=tp_pg, mode=None)
        self.blocks = nn.ModuleList([Block(width, tp_pg) for _ in range(num_layers)])

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return x

    @torch.no_grad()
    def init_model_randomly(self, config):
        std = config.init_std
        num_layers = config.num_layers
        for full_name, param in self.named_parameters():
            module_name, param_name = full_name.rsplit(".", 1)
            module = self.get_submodule(module_name)
            if isinstance(module, TensorParallelColumnLinear):
                nn.init.normal_(module.weight, mean=0.0, std=std)
            elif isinstance(module, TensorParallelRowLinear):
                nn.init.normal_(module.weight, mean=0.0, std=std / math.sqrt(2 * num_layers))
            elif isinstance(module, nn.RMSNorm):
                module.weight.fill_(1)
            elif isinstance(module, TensorParallelEmbedding):
                nn.init.normal_(module.weight, mean=0.0, std=std)
            else:
                raise ValueError(f"no init for {param_name} of {module_name}")
