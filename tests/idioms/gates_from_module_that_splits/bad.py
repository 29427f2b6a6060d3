"""The block's gates come from a module of the file that splits its own output
(`gate_attn, gate_mlp = self.gates(c)`). Its Linear keeps an ordinary init, so the gates are O(1)
from step zero: the branches they multiply are plain residual writers, with no depth factor."""

import torch.nn as nn
import torch.nn.functional as F


class GateHead(nn.Module):
    def __init__(self, width, cond_width, parts=2):
        super().__init__()
        self.parts = parts
        self.lin = nn.Linear(cond_width, parts * width)

    def forward(self, c):
        return [g.unsqueeze(1) for g in self.lin(F.silu(c)).chunk(self.parts, dim=-1)]


class Layer(nn.Module):
    def __init__(self, width, cond_width):
        super().__init__()
        self.gates = GateHead(width, cond_width)
        self.norm1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.fc2 = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x, c):
        gate_attn, gate_mlp = self.gates(c)
        x = x + gate_attn * self.mix(self.norm1(x))
        return x + gate_mlp * self.fc2(F.gelu(self.fc1(self.norm2(x))))


class Net(nn.Module):
    def __init__(self, width=160, cond_width=32, n_layers=10):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width, cond_width) for _ in range(n_layers)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.trunc_normal_(module.weight, std=0.02)

    def forward(self, x, c):
        for layer in self.layers:
            x = layer(x, c)
        return x
