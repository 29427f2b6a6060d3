"""LayerScale switched on by the number it starts at (`... if ls_init else None`): the model
built with its defaults passes ls_init=0.0 down through its stages (whose own default 1.0 is
never used), so no branch is gated and the writers, at 0.02, lack the depth factor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, width, ls_init=1e-5):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001
        self.gamma = nn.Parameter(ls_init * torch.ones(width)) if ls_init else None

    def forward(self, x):
        shortcut = x
        x = self.down(F.gelu(self.up(self.norm(x))))
        if self.gamma is not None:
            x = x.mul(self.gamma)
        return x + shortcut


class Stage(nn.Module):
    def __init__(self, width, depth=2, ls_init=1.0):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(width, ls_init=ls_init) for _ in range(depth)])

    def forward(self, x):
        return self.blocks(x)


class Net(nn.Module):
    def __init__(self, width=64, depths=(2, 2, 6, 2), ls_init=0.0):
        super().__init__()
        self.stages = nn.Sequential()
        for i in range(len(depths)):
            self.stages.append(Stage(width, depth=depths[i], ls_init=ls_init))
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        return self.stages(x)
