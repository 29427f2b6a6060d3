"""Small models that leave layers at PyTorch's default init, on purpose or by mistake.

Loaded by `test_default_init.py` both in-process and, by its path, in the `--runtime` child.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvAttention(nn.Module):
    """Pre-norm attention over the pixels of a feature map, all 1x1 convolutions."""

    def __init__(self, dim: int, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.norm = nn.GroupNorm(1, dim)
        self.to_qkv = nn.Conv2d(dim, dim * 3, 1, bias=False)
        self.to_out = nn.Conv2d(dim, dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        q, k, v = self.to_qkv(self.norm(x)).reshape(b, 3, self.heads, c // self.heads, h * w).unbind(1)
        out = F.scaled_dot_product_attention(q.transpose(-1, -2), k.transpose(-1, -2), v.transpose(-1, -2))
        return self.to_out(out.transpose(-1, -2).reshape(b, c, h, w))


class DefaultUNet(nn.Module):
    """A small U-Net with a pre-norm attention block in the middle; nothing re-initialises it:
    every convolution, the transposed one and the norms keep PyTorch's defaults, as built."""

    def __init__(self, channels: int = 3, dim: int = 8) -> None:
        super().__init__()
        self.stem = nn.Conv2d(channels, dim, 3, padding=1)
        self.down = nn.Conv2d(dim, dim * 2, 4, stride=2, padding=1)
        self.mid_attn = ConvAttention(dim * 2)
        self.mid_ff = nn.Sequential(
            nn.GroupNorm(1, dim * 2), nn.Conv2d(dim * 2, dim * 4, 1), nn.GELU(), nn.Conv2d(dim * 4, dim * 2, 1)
        )
        self.up = nn.ConvTranspose2d(dim * 2, dim, 4, stride=2, padding=1)
        self.out = nn.Conv2d(dim * 2, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stem(x)
        mid = self.down(h)
        mid = mid + self.mid_attn(mid)
        mid = mid + self.mid_ff(mid)
        return self.out(torch.cat([self.up(mid), h], dim=1))


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)
        self.ln_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.proj(F.gelu(self.fc(self.ln_2(x))))


class DefaultLM(nn.Module):
    """A pre-norm decoder with no init code at all: the writers (`attn.out_proj`, `proj`) have
    no depth factor, which is a bug; every other layer's default is no finding of its own."""

    def __init__(self, vocab: int = 64, dim: int = 32, depth: int = 2) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.tok(ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class ZeroOutLM(DefaultLM):
    """The only init of its own zeroes each writer (the weights: the biases are already zero or
    a default): the rest of the model deliberately keeps PyTorch's defaults."""

    def __init__(self) -> None:
        super().__init__()
        for block in self.blocks:
            nn.init.zeros_(block.attn.out_proj.weight)
            nn.init.zeros_(block.proj.weight)
            nn.init.zeros_(block.proj.bias)


class EmbeddingOnlyLM(DefaultLM):
    """Its one init of its own: the token embedding, N(0, 0.02), tied to the head. No plan for
    the linears, which deliberately keep PyTorch's default."""

    def __init__(self) -> None:
        super().__init__()
        self.head.weight = self.tok.weight
        nn.init.normal_(self.tok.weight, std=0.02)


class TiedDefaultLM(DefaultLM):
    """The head tied to an embedding left at nn.Embedding's N(0, 1): a layer default, but not
    for a head (logits of std sqrt(dim) at step zero)."""

    def __init__(self) -> None:
        super().__init__()
        self.head.weight = self.tok.weight


class OneBranchBlock(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 2 * dim, bias=False)
        self.down = nn.Linear(2 * dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(F.silu(self.up(self.norm(x))))


class ThreeBlockLM(nn.Module):
    """Three one-branch blocks at PyTorch's default: std 1/sqrt(3 fan_in) on the writers is
    exactly what `fan-in` asks of 3 residual layers, by coincidence, not by a plan."""

    def __init__(self, vocab: int = 64, dim: int = 32) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(OneBranchBlock(dim) for _ in range(3))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.tok(ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class LateLayerGPT(nn.Module):
    """A GPT-2 plan (`apply(_init_weights)`: linears and embeddings N(0, 0.02), biases 0,
    writers 0.02/sqrt(2 n_layer)) run before the last layers are created: `pre_head` keeps
    PyTorch's default, missed by the plan. `side` is the model's own off-plan init."""

    def __init__(self, vocab: int = 64, dim: int = 32, depth: int = 2, side_std: float | None = None) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.apply(self._init_weights)
        for block in self.blocks:
            nn.init.normal_(block.attn.out_proj.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.normal_(block.proj.weight, std=0.02 / math.sqrt(2 * depth))
        self.pre_head = nn.Linear(dim, dim)
        self.side = None
        if side_std is not None:
            self.side = nn.Linear(dim, dim, bias=False)
            nn.init.normal_(self.side.weight, std=side_std)

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)
        if isinstance(module, nn.MultiheadAttention):
            nn.init.normal_(module.in_proj_weight, std=0.02)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.tok(ids)
        for block in self.blocks:
            x = block(x)
        x = self.pre_head(self.norm(x))
        if self.side is not None:
            x = self.side(x)
        return self.head(x)


class OffPlanGPT(LateLayerGPT):
    def __init__(self) -> None:
        super().__init__(side_std=0.1)


def build_default_unet() -> nn.Module:
    return DefaultUNet()
