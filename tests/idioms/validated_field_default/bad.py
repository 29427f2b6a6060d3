"""A dataclass config whose fields are declared through a validating field helper that, like
`dataclasses.field`, takes the field's default as `default=`. The decorated helper's own body only
checks a value; the default the config gets is the keyword's. The decoder's writers keep the
plain init std, with no depth factor."""

import dataclasses

import torch.nn as nn
import torch.nn.functional as F


def checked_field(check):
    def make_field(default=None):
        return dataclasses.field(default=default, metadata={"check": check})

    return make_field


@checked_field
def positive_int(value=None):
    if value is not None and value <= 0:
        raise ValueError(f"expected a positive integer, got {value}")


@dataclasses.dataclass
class DecoderConfig:
    width: int = positive_int(default=384)
    depth: int = positive_int(default=8)
    vocab: int = positive_int(default=1000)
    init_std: float = 0.02


class Block(nn.Module):
    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.attn_norm = nn.LayerNorm(config.width)
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.attn_out = nn.Linear(config.width, config.width)  # expect: INI001
        self.mlp_norm = nn.LayerNorm(config.width)
        self.up = nn.Linear(config.width, 4 * config.width)
        self.down = nn.Linear(4 * config.width, config.width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.attn_norm(x)).chunk(3, dim=-1)
        x = x + self.attn_out(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down(F.gelu(self.up(self.mlp_norm(x))))


class Decoder(nn.Module):
    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab, config.width)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.depth)])
        self.norm = nn.LayerNorm(config.width)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=self.config.init_std)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.norm(x) @ self.embed.weight.T
