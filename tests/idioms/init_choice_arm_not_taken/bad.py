"""A layer class that picks its own init from a string (`init="zero"`, `"fan_in"`, `"normal"`),
each choice a method of its own called with nothing but `self`. The arm no layer takes
(`self._normal_init()`) is a choice the constructor made against, not an entry point a trainer
applies later: the plan is what the chosen arms did. The writer built as a plain `nn.Linear`
keeps PyTorch's default init, with no depth factor."""
import math

import torch
import torch.nn as nn


class Dense(nn.Linear):
    def __init__(self, d_in, d_out, init="fan_in"):
        super().__init__(d_in, d_out)
        with torch.no_grad():
            self.bias.zero_()
        if init == "fan_in":
            self._fan_in_init()
        elif init == "normal":
            self._normal_init()
        elif init == "zero":
            self._zero_init()
        else:
            raise ValueError(init)

    def _fan_in_init(self):
        nn.init.normal_(self.weight, std=1.0 / math.sqrt(self.in_features))

    def _normal_init(self):
        nn.init.kaiming_normal_(self.weight, nonlinearity="linear")

    def _zero_init(self):
        with torch.no_grad():
            self.weight.fill_(0.0)


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inner = Dense(width, 4 * width)
        self.outer = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, h):
        return self.outer(torch.relu(self.inner(h)))


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_a = nn.LayerNorm(width)
        self.attend = nn.MultiheadAttention(width, 4, batch_first=True)
        self.gate_out = Dense(width, width, init="zero")
        self.norm_b = nn.LayerNorm(width)
        self.mixer = Mixer(width)

    def forward(self, x):
        h = self.norm_a(x)
        x = x + self.gate_out(self.attend(h, h, h, need_weights=False)[0])
        return x + self.mixer(self.norm_b(x))


class Encoder(nn.Module):
    def __init__(self, width=64, depth=8):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
