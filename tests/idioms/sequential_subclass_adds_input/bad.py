"""A subclass of `nn.Sequential` with no `__init__` of its own (the library's registers the
layers) whose `forward` adds its input to what the layers compute: `x + super().forward(x)`.
Each block is a pre-norm MLP built that way; its last linear keeps PyTorch's default init."""

from torch import nn


class AddInput(nn.Sequential):
    def forward(self, x):
        return x + super().forward(x)


class Model(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.blocks = nn.ModuleList(
            [
                AddInput(
                    nn.LayerNorm(width),
                    nn.Linear(width, 4 * width),
                    nn.GELU(),
                    nn.Linear(4 * width, width),  # expect: INI001
                )
                for _ in range(depth)
            ]
        )
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
