"""A pre-norm block whose norm is modulated by a condition (`scale, shift` from a linear layer
of the time embedding): the branch input is normalised, nothing gates the branch output, and
the writers get the GPT-2 depth factor."""

import math

import torch.nn as nn
import torch.nn.functional as F


class ModulatedNorm(nn.Module):
    def __init__(self, width, cond_width):
        super().__init__()
        self.to_scale_shift = nn.Linear(cond_width, 2 * width)

    def forward(self, x, cond):
        normed = F.layer_norm(x, x.shape[-1:])
        scale, shift = self.to_scale_shift(cond).unsqueeze(1).chunk(2, dim=-1)
        return normed * (1 + scale) + shift


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inp = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.inp(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v))


class Denoiser(nn.Module):
    def __init__(self, width=192, cond_width=64, depth=10):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(
                nn.ModuleList(
                    [
                        ModulatedNorm(width, cond_width),
                        Mixer(width),
                        ModulatedNorm(width, cond_width),
                        nn.Sequential(
                            nn.Linear(width, 4 * width),
                            nn.SiLU(),
                            nn.Linear(4 * width, width),
                        ),
                    ]
                )
            )
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.trunc_normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)
        for _, mixer, _, mlp in self.layers:
            nn.init.trunc_normal_(mixer.proj.weight, std=0.02 / math.sqrt(2 * depth))
            nn.init.trunc_normal_(mlp[-1].weight, std=0.02 / math.sqrt(2 * depth))

    def forward(self, x, cond):
        for mix_norm, mixer, mlp_norm, mlp in self.layers:
            skip = x
            x = mixer(mix_norm(x, cond)) + skip
            skip = x
            x = mlp(mlp_norm(x, cond)) + skip
        return x
