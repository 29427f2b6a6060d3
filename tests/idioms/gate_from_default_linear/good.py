"""adaLN-Zero: the modulation Linear that computes the gate is zero-initialised, so every
branch starts switched off; the writers need no depth factor."""
import torch
import torch.nn as nn


class CondNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width, elementwise_affine=False)
        self.to_mod = nn.Linear(width, 3 * width)
        nn.init.zeros_(self.to_mod.weight)
        nn.init.zeros_(self.to_mod.bias)

    def forward(self, x, cond):
        shift, scale, gate = self.to_mod(torch.relu(cond)).chunk(3, dim=-1)
        return self.norm(x) * (1 + scale) + shift, gate


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, h):
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        return self.out(torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v)


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre_mix = CondNorm(width)
        self.mix = Mixer(width)
        self.pre_mlp = CondNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x, cond):
        h, g = self.pre_mix(x, cond)
        x = x + g * self.mix(h)
        h, g = self.pre_mlp(x, cond)
        x = x + self.down(torch.relu(self.up(h))) * g
        return x


class Net(nn.Module):
    def __init__(self, width=256, n_layer=12):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layer)])

    def forward(self, x, cond):
        for layer in self.layers:
            x = layer(x, cond)
        return x
