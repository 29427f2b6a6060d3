"""[mixer, feed-forward] pairs walked by index, each writer zero-initialised (a deliberate scheme)."""
import torch.nn as nn
import torch.nn.functional as F


class TokenMixer(nn.Module):
    def __init__(self, width, heads=4):
        super().__init__()
        self.heads = heads
        self.pre = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, h):
        q, k, v = self.qkv(self.pre(h)).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v))


class ChannelMixer(nn.Module):
    def __init__(self, width, mult=2):
        super().__init__()
        self.body = nn.Sequential(
            nn.LayerNorm(width),
            nn.Linear(width, mult * width),
            nn.SiLU(),
            nn.Linear(mult * width, width),
        )

    def forward(self, h):
        return self.body(h)


class Backbone(nn.Module):
    def __init__(self, width=192, num_layers=10):
        super().__init__()
        self.num_layers = num_layers
        self.stages = nn.ModuleList()
        for _ in range(num_layers):
            self.stages.append(nn.ModuleList([TokenMixer(width), ChannelMixer(width)]))
        self.final = nn.LayerNorm(width)
        for mix, ffn in self.stages:
            nn.init.zeros_(mix.out.weight)
            nn.init.zeros_(ffn.body[3].weight)

    def forward(self, h):
        for n in range(self.num_layers):
            mix, ffn = self.stages[n]
            h = mix(h) + h
            h = ffn(h) + h
        return self.final(h)
