"""MLP-Mixer/ConvMixer-style: a builder returns nn.Sequential of Residual(PreNorm(fn)) wrappers."""
import math

import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x) + x


class PreNormResidual(Residual):
    def __init__(self, dim, fn):
        super().__init__(fn)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return self.fn(self.norm(x)) + x


def feed_forward(dim, expansion, dense):
    inner = int(dim * expansion)
    return nn.Sequential(dense(dim, inner), nn.GELU(), dense(inner, dim))


def init_mixer(model, depth):
    for name, p in model.named_parameters():
        if p.dim() < 2:
            continue
        is_writer = name.endswith("fn.2.weight")
        nn.init.normal_(p, std=0.02 / math.sqrt(2 * depth) if is_writer else 0.02)
    return model


def mlp_mixer(dim=512, depth=12, num_patches=196, num_classes=1000):
    token_dense = lambda i, o: nn.Conv1d(i, o, kernel_size=1)  # noqa: E731
    model = nn.Sequential(
        nn.Linear(768, dim),
        *[
            nn.Sequential(
                PreNormResidual(dim, feed_forward(num_patches, 0.5, token_dense)),
                PreNormResidual(dim, feed_forward(dim, 4, nn.Linear)),
            )
            for _ in range(depth)
        ],
        nn.LayerNorm(dim),
        nn.Linear(dim, num_classes),
    )
    return init_mixer(model, depth)
