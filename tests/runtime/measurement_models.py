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
                self.draw(parameter, self.writer_std())
        self.reset_buffers()

    def draw(self, tensor: torch.Tensor, std: float) -> None:
        if std > 0:
            nn.init.normal_(tensor, 0.0, std)
        else:
            nn.init.zeros_(tensor)

    def reset_buffers(self) -> None:
        self.positions.copy_(torch.arange(self.config.block_size))

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            self.draw(module.weight, 0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            self.draw(module.weight, 0.02)
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


class ZeroWriterGPT(TinyGPT):
    """Correct under the zero-init-writers policy: every residual writer starts at 0."""

    def writer_std(self) -> float:
        return 0.0


class PerLayerGPT(TinyGPT):
    """Correct under the per-layer policy: writers of layer l get 0.02 / sqrt(2 (l + 1))."""

    @torch.no_grad()
    def init_weights(self) -> None:
        super().init_weights()
        for index, block in enumerate(self.h):
            for writer in (block.attn.c_proj, block.mlp.c_proj):
                self.draw(writer.weight, self.layer_writer_std(index))

    def layer_writer_std(self, index: int) -> float:
        return 0.02 / math.sqrt(2 * (index + 1))


class TruncatedGPT(TinyGPT):
    """Correct with normals truncated at +-2 sigma everywhere."""

    def draw(self, tensor: torch.Tensor, std: float) -> None:
        nn.init.trunc_normal_(tensor, 0.0, std, -2 * std, 2 * std)


def residual_writers(model: TinyGPT) -> list[str]:
    return [f"h.{index}.{branch}.c_proj" for index in range(model.config.n_layer) for branch in ("attn", "mlp")]


@dataclass
class LlamaConfig:
    vocab_size: int = 320
    dim: int = 64
    n_layers: int = 4
    n_heads: int = 4
    n_kv_heads: int = 2
    hidden_dim: int = 160
    max_seq_len: int = 64
    rope_theta: float = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate(x: torch.Tensor, theta: float) -> torch.Tensor:
    """Rotary position embedding computed on the fly (no buffer to lose on the meta path)."""
    half = x.shape[-1] // 2
    frequencies = theta ** (-torch.arange(half, device=x.device, dtype=torch.float32) / half)
    angles = torch.arange(x.shape[-2], device=x.device, dtype=torch.float32)[:, None] * frequencies
    cos, sin = angles.cos(), angles.sin()
    first, second = x[..., :half], x[..., half:]
    return torch.cat((first * cos - second * sin, first * sin + second * cos), dim=-1)


class GroupedAttention(nn.Module):
    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.n_heads, self.n_kv_heads, self.theta = config.n_heads, config.n_kv_heads, config.rope_theta
        self.head_dim = config.dim // config.n_heads
        self.wq = nn.Linear(config.dim, config.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(config.dim, config.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(config.dim, config.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(config.n_heads * self.head_dim, config.dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        q = self.wq(x).view(batch, length, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(batch, length, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(batch, length, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = _rotate(q, self.theta), _rotate(k, self.theta)
        repeat = self.n_heads // self.n_kv_heads
        k, v = k.repeat_interleave(repeat, dim=1), v.repeat_interleave(repeat, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(batch, length, -1))


class SwiGLU(nn.Module):
    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.w1 = nn.Linear(config.dim, config.hidden_dim, bias=False)
        self.w2 = nn.Linear(config.hidden_dim, config.dim, bias=False)
        self.w3 = nn.Linear(config.dim, config.hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class LlamaBlock(nn.Module):
    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.attention_norm = RMSNorm(config.dim)
        self.attention = GroupedAttention(config)
        self.ffn_norm = RMSNorm(config.dim)
        self.feed_forward = SwiGLU(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class TinyLlama(nn.Module):
    """Llama-shaped (RMSNorm, rotary, grouped-query attention, SwiGLU, untied head), GPT-2 init recipe."""

    def __init__(self, config: LlamaConfig | None = None) -> None:
        super().__init__()
        self.config = config = config or LlamaConfig()
        self.tok_embeddings = nn.Embedding(config.vocab_size, config.dim)
        self.layers = nn.ModuleList(LlamaBlock(config) for _ in range(config.n_layers))
        self.norm = RMSNorm(config.dim)
        self.output = nn.Linear(config.dim, config.vocab_size, bias=False)
        self.init_weights()

    @torch.no_grad()
    def init_weights(self) -> None:
        writer_std = 0.02 / math.sqrt(2 * self.config.n_layers)
        for name, parameter in self.named_parameters():
            if name.endswith("norm.weight"):
                nn.init.ones_(parameter)
            else:
                nn.init.normal_(parameter, 0.0, writer_std if name.endswith(("wo.weight", "w2.weight")) else 0.02)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.tok_embeddings(tokens)
        for layer in self.layers:
            x = layer(x)
        return self.output(self.norm(x))


#: The shapes the benchmark measures: GPT-2 XL (1.56B parameters) and a 70B Llama.
GPT2_XL = TinyConfig(vocab_size=50257, block_size=1024, n_layer=48, n_embd=1600, n_head=25)
LLAMA_70B = LlamaConfig(
    vocab_size=128256, dim=8192, n_layers=80, n_heads=64, n_kv_heads=8, hidden_dim=28672, max_seq_len=8192
)
