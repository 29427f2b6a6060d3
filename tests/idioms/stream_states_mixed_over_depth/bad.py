"""Each layer's output is kept (`states.append(x)`) and mixed over depth only for the output
(`return mix(states)`): the stream itself runs through every layer as one sum, and the writers
keep PyTorch's default init."""

import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(self.up(self.norm(x)).relu())


class DepthMix(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.query = nn.Parameter(torch.zeros(width))
        nn.init.normal_(self.query, std=0.02)

    def forward(self, states):
        values = torch.stack(states)
        weights = (self.norm(values) @ self.query).softmax(dim=0)
        return (weights.unsqueeze(-1) * values).sum(0)


class Network(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(
            [nn.ModuleList([FeedForward(width), FeedForward(width), DepthMix(width)]) for _ in range(depth)]
        )

    def forward(self, x):
        states = [x]
        for first, second, mix in self.layers:
            x = first(x) + x
            x = second(x) + x
            states.append(x)
        return self.layers[-1][2](states)
