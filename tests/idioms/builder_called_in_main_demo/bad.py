"""An MLP-Mixer built by module-level functions, not classes: `mixer(...)` returns an
`nn.Sequential` of pre-norm residual branches, and the file ends with a quick test that builds
one under `if __name__ == "__main__":`. Nothing scales the last layer of each branch."""

import torch
from torch import nn


class PreNormResidual(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fn = fn

    def forward(self, x):
        return self.fn(self.norm(x)) + x


def feed_forward(dim, hidden):
    return nn.Sequential(
        nn.Linear(dim, hidden),
        nn.GELU(),
        nn.Linear(hidden, dim),  # expect: INI001
    )


def mixer(*, dim, depth, expansion=4):
    return nn.Sequential(
        *[PreNormResidual(dim, feed_forward(dim, expansion * dim)) for _ in range(depth)],
        nn.LayerNorm(dim),
    )


if __name__ == "__main__":
    model = mixer(dim=64, depth=4)
    assert model(torch.randn(2, 16, 64)).shape == (2, 16, 64)
