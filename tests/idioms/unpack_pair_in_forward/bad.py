"""Each layer is a ModuleList [norm, mlp] unpacked by an assignment inside the loop
(`norm, mlp = layer`); the MLP's writer is left at 0.02."""
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc_in = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)  # expect: INI001

    def forward(self, x):
        return self.fc_out(nn.functional.gelu(self.fc_in(x)))


class Mixer(nn.Module):
    def __init__(self, dim=128, depth=10):
        super().__init__()
        self.layers = nn.ModuleList([nn.ModuleList([nn.LayerNorm(dim), MLP(dim)]) for _ in range(depth)])
        for name, param in self.named_parameters():
            if name.endswith("weight") and param.dim() == 2:
                nn.init.normal_(param, std=0.02)

    def forward(self, x):
        for layer in self.layers:
            norm, mlp = layer
            x = x + mlp(norm(x))
        return x
