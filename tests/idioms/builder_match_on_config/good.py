"""The attention of each layer comes from a builder that dispatches on the config with a
`match` statement; the default picks the grouped-query attention, whose writer the init
scales by the depth. The plain fallback, built only on request, is left alone."""
from dataclasses import dataclass

import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Settings:
    width: int = 256
    depth: int = 12
    mixer: str = "grouped"


class PlainAttention(nn.Module):
    def __init__(self, width, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width, bias=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        return self.proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, c))


class GroupedAttention(nn.Module):
    def __init__(self, width, heads=8):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(width, width, bias=False)
        self.kv = nn.Linear(width, 2 * width // 4, bias=False)
        self.mix = nn.Linear(width, width, bias=False)

    def forward(self, x):
        b, t, c = x.shape
        q = self.query(x).view(b, t, self.heads, -1).transpose(1, 2)
        k, v = self.kv(x).view(b, t, 2, self.heads // 4, -1).permute(2, 0, 3, 1, 4)
        return self.mix(F.scaled_dot_product_attention(q, k, v, enable_gqa=True).transpose(1, 2).reshape(b, t, c))


def make_mixer(settings: Settings) -> nn.Module:
    match settings.mixer:
        case "plain" | "full":
            return PlainAttention(settings.width)
        case "grouped":
            return GroupedAttention(settings.width)
        case other:
            raise ValueError(other)


class Layer(nn.Module):
    def __init__(self, width, mixer=None):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mixer = mixer or PlainAttention(width)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class Decoder(nn.Module):
    def __init__(self, settings: Settings):
        super().__init__()
        self.layers = nn.ModuleList([Layer(settings.width, make_mixer(settings)) for _ in range(settings.depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for layer in self.layers:
            if isinstance(layer.mixer, GroupedAttention):
                nn.init.normal_(layer.mixer.mix.weight, std=0.02 * settings.depth**-0.5)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
