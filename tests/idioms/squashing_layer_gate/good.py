"""A mixer whose two branches each pass through a feature gate: a linear makes scores, an
`nn.Softmax` module squashes them, and they multiply the branch. The scoring linear writes
nothing into the stream (its output is a gate, as `torch.softmax(...)` would make it), and the
branch it gates is scaled by that gate, not by its writer's init alone."""

import torch.nn as nn


class FeatureGate(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.score = nn.Linear(width, width)
        self.squash = nn.Softmax(dim=-1)

    def forward(self, h):
        return h * self.squash(self.score(h))


class MixerBlock(nn.Module):
    def __init__(self, tokens, width):
        super().__init__()
        self.norm_tokens = nn.LayerNorm(width)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, tokens), nn.GELU(), nn.Linear(tokens, tokens))
        self.token_gate = FeatureGate(tokens)
        self.norm_features = nn.LayerNorm(width)
        self.feature_mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))
        self.feature_gate = FeatureGate(width)

    def forward(self, x):
        mixed = self.token_mlp(self.norm_tokens(x).transpose(1, 2))
        x = x + self.token_gate(mixed).transpose(1, 2)
        return x + self.feature_gate(self.feature_mlp(self.norm_features(x)))


class Mixer(nn.Module):
    def __init__(self, tokens=16, width=64, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([MixerBlock(tokens, width) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
