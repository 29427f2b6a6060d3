"""A block checks the length of a list its caller built by a comprehension over an argument
(`[w // 2 for w in window]`) and raises if it is wrong: the list's length is unknown, so the
guard may or may not raise, and the layers after it are built. The writer gets 0.02 only."""
import torch.nn as nn


class Mixer(nn.Module):
    def __init__(self, dim, window, shift):
        super().__init__()
        if len(window) != 2 or len(shift) != 2:
            raise ValueError("window and shift need two entries")
        self.mix_in = nn.Linear(dim, dim)
        self.mix_out = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        return self.mix_out(self.mix_in(x).relu())


class Block(nn.Module):
    def __init__(self, dim, window):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mixer = Mixer(dim, window, [w // 2 for w in window])

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class Model(nn.Module):
    def __init__(self, dim, window, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, window) for _ in range(depth)])
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
