"""The gates of bad.py, their Linear zero-initialised after the plain init (adaLN-Zero): every
branch starts switched off, a deliberate alternative to depth scaling."""

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
        self.mix = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.fc2 = nn.Linear(2 * width, width)

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
        for layer in self.layers:
            nn.init.zeros_(layer.gates.lin.weight)
            nn.init.zeros_(layer.gates.lin.bias)

    def forward(self, x, c):
        for layer in self.layers:
            x = layer(x, c)
        return x
