"""A small GPT whose init recipe is chosen by `GPTConfig.init`: correct recipes and real bugs.

Also a model file for the CLI tests: `initlint check gpt_zoo.py --runtime --model GPT
--config init=no-depth`. CPU, tiny by default (4 blocks, width 64, vocab 256).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

CORRECT = ("gpt2", "per-layer", "zero-init", "trunc")
BUGS = (
    "no-depth",
    "n-layer",
    "overwritten",
    "wrong-projection",
    "embedding-std1",
    "empty-param",
    "runtime-division",
    "meta-lost",
)


@dataclass
class GPTConfig:
    vocab_size: int = 256
    block_size: int = 16
    n_layer: int = 4
    n_head: int = 2
    n_embd: int = 64
    init: str = "gpt2"


class RMSNorm(nn.Module):
    """Gain left as `torch.empty` unless the init writes it (the `empty-param` bug)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        if config.init == "meta-lost":
            # Computed at construction only: a meta build + to_empty leaves garbage here.
            self.register_buffer(
                "temperature", torch.full((config.n_head, 1, 1), 1.0 / math.sqrt(config.n_embd // config.n_head))
            )
        else:
            self.temperature = None

    def forward(self, x):
        batch, length, width = x.shape
        q, k, v = self.c_attn(x).split(width, dim=2)
        q, k, v = (t.view(batch, length, self.n_head, width // self.n_head).transpose(1, 2) for t in (q, k, v))
        if self.temperature is not None:
            q = q * self.temperature * math.sqrt(width // self.n_head)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(batch, length, width))


class MLP(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)
        self.runtime_scale = 1 / math.sqrt(2 * config.n_layer) if config.init == "runtime-division" else None

    def forward(self, x):
        if self.runtime_scale is not None:
            x = x + self.attn(self.ln_1(x)) * self.runtime_scale
            return x + self.mlp(self.ln_2(x)) * self.runtime_scale
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=RMSNorm(config.n_embd) if config.init == "empty-param" else nn.LayerNorm(config.n_embd),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        if config.init == "embedding-std1":
            # Tied after the init: the head's N(0, 0.02) is dropped, the embedding keeps N(0, 1).
            self.init_weights()
            self.lm_head.weight = self.transformer.wte.weight
            return
        self.tie_weights()
        self.init_weights()

    def tie_weights(self) -> None:
        # Ties do not survive `to_empty`: a meta-ready model re-ties after materialising.
        self.transformer.wte.weight = self.lm_head.weight

    def init_weights(self) -> None:
        recipe, depth = self.config.init, self.config.n_layer
        if recipe == "overwritten":
            self._scale_writers(0.02 / math.sqrt(2 * depth))
        self.apply(self._init_weights)
        if recipe in ("gpt2", "empty-param", "runtime-division", "meta-lost", "embedding-std1"):
            self._scale_writers(0.02 / math.sqrt(2 * depth))
        elif recipe == "n-layer":
            self._scale_writers(0.02 / math.sqrt(depth))
        elif recipe == "wrong-projection":
            self._scale_writers(0.02 / math.sqrt(2 * depth), suffixes=("attn.c_proj.weight", "c_fc.weight"))
        elif recipe == "per-layer":
            for index, block in enumerate(self.transformer.h):
                for layer in (block.attn.c_proj, block.mlp.c_proj):
                    nn.init.normal_(layer.weight, std=0.02 / math.sqrt(2 * (index + 1)))
        elif recipe == "zero-init":
            for block in self.transformer.h:
                nn.init.zeros_(block.attn.c_proj.weight)
                nn.init.zeros_(block.mlp.c_proj.weight)
        elif recipe == "trunc":
            std = 0.02 / math.sqrt(2 * depth)
            self._scale_writers(std, truncate=True)

    def _scale_writers(self, std: float, suffixes=("c_proj.weight",), truncate: bool = False) -> None:
        for name, param in self.named_parameters():
            if name.endswith(suffixes):
                if truncate:
                    nn.init.trunc_normal_(param, std=std, a=-2 * std, b=2 * std)
                else:
                    torch.nn.init.normal_(param, mean=0.0, std=std)

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            if self.config.init == "trunc":
                nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
            else:
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding) and self.config.init != "embedding-std1":
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            torch.nn.init.ones_(module.weight)
            torch.nn.init.zeros_(module.bias)

    def forward(self, idx):
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(positions)
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def make(init: str = "gpt2", **overrides) -> GPT:
    return GPT(GPTConfig(init=init, **overrides))
