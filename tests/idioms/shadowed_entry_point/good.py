"""A library base class declares the init entry point and every model overrides it: the base's
version never runs on the model, so it is no init left for someone else to apply."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseModel(nn.Module):
    def init_model_randomly(self, config):
        raise NotImplementedError


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.o_proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.up_proj = nn.Linear(width, 4 * width)
        self.down_proj = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.o_proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.down_proj(F.gelu(self.up_proj(self.norm2(x))))


class Model(BaseModel):
    def __init__(self, width=256, num_layers=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(num_layers)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x

    @torch.no_grad()
    def init_model_randomly(self, config):
        for name, param in self.named_parameters():
            if name.endswith(("o_proj.weight", "down_proj.weight")):
                nn.init.normal_(param, std=config.std / math.sqrt(2 * config.num_layers))
            elif param.dim() == 2:
                nn.init.normal_(param, std=config.std)
