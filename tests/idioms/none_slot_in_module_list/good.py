"""A ModuleList holding a None slot, unpacked in `forward`, with the sandwich norm on by default.

`pre, post = norms` binds both norms here: the branch output is normalised before it is added,
so its scale does not grow with depth whatever the init of `fc_out`.
"""
import torch.nn as nn
import torch.nn.functional as F


class Mlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc_in = nn.Linear(width, 4 * width)
        self.fc_out = nn.Linear(4 * width, width)

    def forward(self, x):
        return self.fc_out(F.gelu(self.fc_in(x)))


class Stack(nn.Module):
    def __init__(self, width=256, depth=8, sandwich=True):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            norms = nn.ModuleList([nn.LayerNorm(width), nn.LayerNorm(width) if sandwich else None])
            self.layers.append(nn.ModuleList([norms, Mlp(width)]))

    def forward(self, x):
        for norms, mlp in self.layers:
            pre, post = norms
            h = mlp(pre(x))
            if post is not None:
                h = post(h)
            x = x + h
        return x
