"""A stack of pre-norm blocks, then one fusion block per branch. The fusion loop builds each
branch's input afresh from the stack's output, so the fusion blocks sit side by side: each adds
once into its own copy, whatever their count. Only the stack's writers owe a depth factor, and
here they have none."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Mlp(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = Mlp(width)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Fusion(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)

    def forward(self, x):
        return x + self.mix(self.norm(x))


class TwoBranch(nn.Module):
    def __init__(self, width=64, depth=12, branches=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
        self.fusion = nn.ModuleList([Fusion(width) for _ in range(branches)])
        self.heads = nn.ModuleList([nn.Linear(width, 10) for _ in range(branches)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        outs = []
        for i, (fusion, head) in enumerate(zip(self.fusion, self.heads)):
            tokens = torch.cat((x[:, i : i + 1], x), dim=1)
            tokens = fusion(tokens)
            outs.append(head(tokens[:, 0]))
        return outs
