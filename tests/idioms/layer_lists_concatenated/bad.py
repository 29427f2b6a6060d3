"""An MLP whose layers are two lists joined (`[hidden layers] + [output layer]`): the output
layer is the branch's writer, and it keeps PyTorch's default init."""
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.Linear(dim, hidden), nn.GELU()] + [nn.Linear(hidden, dim)]  # expect: INI001
        )

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = MLP(dim, 4 * dim)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class MixerStack(nn.Module):
    def __init__(self, dim=128, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
