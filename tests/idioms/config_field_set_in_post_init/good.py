"""A recurrent-depth decoder whose config derives a field after construction: `__post_init__`
fills `blocks_per_stack` from `depth` when it is left None. The stack is built with the value the
config ends up with, and its writers are scaled by that depth."""

import dataclasses
import math

import torch.nn as nn
import torch.nn.functional as F


@dataclasses.dataclass
class LoopConfig:
    width: int = 256
    depth: int = 6
    loops: int = 3
    blocks_per_stack: int | None = None
    init_std: float = 0.02

    def __post_init__(self):
        if self.blocks_per_stack is None:
            self.blocks_per_stack = self.depth


class Block(nn.Module):
    def __init__(self, config: LoopConfig):
        super().__init__()
        self.attn_norm = nn.RMSNorm(config.width)
        self.qkv = nn.Linear(config.width, 3 * config.width, bias=False)
        self.proj = nn.Linear(config.width, config.width, bias=False)
        self.mlp_norm = nn.RMSNorm(config.width)
        self.gate_up = nn.Linear(config.width, 8 * config.width, bias=False)
        self.down = nn.Linear(4 * config.width, config.width, bias=False)

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class LoopedDecoder(nn.Module):
    def __init__(self, config: LoopConfig):
        super().__init__()
        self.config = config
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.blocks_per_stack)])
        self.norm = nn.RMSNorm(config.width)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=self.config.init_std)
        if isinstance(module, Block):
            depth_std = self.config.init_std / math.sqrt(2 * self.config.blocks_per_stack)
            nn.init.normal_(module.proj.weight, std=depth_std)
            nn.init.normal_(module.down.weight, std=depth_std)

    def forward(self, x):
        for _ in range(self.config.loops):
            for block in self.blocks:
                x = block(x)
        return self.norm(x)
