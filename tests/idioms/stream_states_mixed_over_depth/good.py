"""Each layer's output is kept (`states.append(x)`) and the stream the next layer takes is a
learned mix of all the states so far (`x = mix(states)`: softmax weights over depth, as
DenseFormer's weighted averages or attention over the layers' outputs): an average, not a sum
that grows with depth. The writers keep PyTorch's default init; nothing to report."""

import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

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
            x = mix(states)
        return x
