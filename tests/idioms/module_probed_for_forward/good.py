"""The same probed block with the attention's `to_out` zero-initialised: the arm that runs (every
module has a `forward`) leaves nothing unscaled."""

import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.to_v = nn.Linear(dim, dim)
        self.to_out = nn.Linear(dim, dim)
        nn.init.zeros_(self.to_out.weight)

    def forward(self, x):
        return self.to_out(self.to_v(self.norm(x)))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attn = Attention(dim)
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)
        nn.init.zeros_(self.down.weight)

    def forward(self, x):
        if hasattr(self.attn, "forward"):
            out = self.attn(x)
        else:
            out, _ = self.attn(x, x, x, need_weights=False)
        x = x + out
        return x + self.down(self.up(self.norm(x)).relu())


class Model(nn.Module):
    def __init__(self, dim=64, depth=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
