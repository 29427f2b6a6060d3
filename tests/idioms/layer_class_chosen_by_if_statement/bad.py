"""The feed-forward class is picked by `if`/`elif` statements on a config string (no `else`: the
name is bound on every path that runs on) and built afterwards from the name: either class is
built, and each one's output layer writes the residual stream at PyTorch's default init."""
import torch.nn as nn
import torch.nn.functional as F


class GeluMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class GatedMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.gate = nn.Linear(width, 4 * width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, width, mlp_kind):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        mlp_class = self.mlp_class(mlp_kind)
        self.mlp = mlp_class(width)

    def mlp_class(self, kind):
        if kind == "gelu":
            cls = GeluMLP
        elif kind == "gated":
            cls = GatedMLP
        return cls

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.blocks = nn.ModuleList([Block(config.width, config.mlp_kind) for _ in range(config.n_layer)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
