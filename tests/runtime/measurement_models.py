"""Small GPT-style models for the measurement tests and the runtime benchmark.

`TinyGPT` follows the GPT-2 recipe and supports the meta-device path (its public
`init_weights()` redraws everything and recomputes its buffer; `tie_weights()` reties the
head). Each subclass plants one known bug by overriding one step.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class TinyConfig:
    vocab_size: int = 256
    block_size: int = 32
    n_layer: int = 4
    n_embd: int = 64
    n_head: int = 4
    runtime_divisor: float = 1.0  # divides every branch before its residual add


class SelfAttention(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.c_attn(x).split(width, dim=2)
        q, k, v = (t.view(batch, length, self.n_head, -1).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).reshape(batch, length, width))


class FeedForward(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = SelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = FeedForward(config)
        self.divisor = config.runtime_divisor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x)) / self.divisor
        return x + self.mlp(self.ln_2(x)) / self.divisor


class TinyGPT(nn.Module):
    def __init__(self, config: TinyConfig | None = None) -> None:
        super().__init__()
        self.config = config = config or TinyConfig()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.h = self.make_blocks(config)
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.register_buffer("positions", torch.arange(config.block_size), persistent=False)
        self.lm_head.weight = self.wte.weight
        self.initialise()

    def make_blocks(self, config: TinyConfig) -> nn.ModuleList:
        return nn.ModuleList(Block(config) for _ in range(config.n_layer))

    def initialise(self) -> None:
        self.init_weights()

    def tie_weights(self) -> None:
        self.lm_head.weight = self.wte.weight

    def writer_std(self) -> float:
        return 0.02 / math.sqrt(2 * self.config.n_layer)

    @torch.no_grad()
    def init_weights(self) -> None:
        self.apply(self._init_weights)
        for name, parameter in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(parameter, 0.0, self.writer_std())
        self.reset_buffers()

    def reset_buffers(self) -> None:
        self.positions.copy_(torch.arange(self.config.block_size))

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, 0.0, 0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, 0.0, 0.02)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.wte(idx) + self.wpe(self.positions[: idx.shape[1]])
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class CompoundingGPT(TinyGPT):
    """The public `init_weights()` only rescales the writers in place: a second call shrinks them again."""

    def initialise(self) -> None:
        self.apply(self._init_weights)
        self.init_weights()

    @torch.no_grad()
    def init_weights(self) -> None:
        for name, parameter in self.named_parameters():
            if name.endswith("c_proj.weight"):
                parameter.mul_(1.0 / math.sqrt(2 * self.config.n_layer))


class LostBufferGPT(TinyGPT):
    """Its buffer is computed in `__init__` only: the meta path leaves it uninitialised."""

    def reset_buffers(self) -> None:
        pass


class UntiedMetaGPT(TinyGPT):
    """No `tie_weights()` to call after `to_empty`: the head tie is lost on the meta path."""

    tie_weights = None  # type: ignore[assignment]


class ClonedBlocksGPT(TinyGPT):
    """Blocks are deep copies of one prototype, and the init only redraws the embeddings."""

    def make_blocks(self, config: TinyConfig) -> nn.ModuleList:
        prototype = Block(config)
        return nn.ModuleList(copy.deepcopy(prototype) for _ in range(config.n_layer))

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, 0.0, 0.02)


class StdOneEmbeddingGPT(TinyGPT):
    """The init skips the token embedding and the head tied to it: both keep nn.Embedding's N(0, 1)."""

    def _init_weights(self, module: nn.Module) -> None:
        if getattr(module, "weight", None) is not self.wte.weight:
            super()._init_weights(module)


def residual_writers(model: TinyGPT) -> list[str]:
    return [f"h.{index}.{branch}.c_proj" for index in range(model.config.n_layer) for branch in ("attn", "mlp")]
