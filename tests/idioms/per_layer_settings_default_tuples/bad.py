"""A forecasting encoder whose window settings are a list of tuples, one per attention layer of
a block (`window_sizes=[(4, 4), (8, 8)]`), or a list of such lists, one per stage: the
constructor tells which by `isinstance(window_sizes[0][0], (list, tuple))`, as the default decides
it, and repeats a single setting for every stage. Each block runs its layers through one
pre-norm stream; kaiming for every Linear, no depth factor."""
import torch.nn as nn


class WindowAttention(nn.Module):
    def __init__(self, dim, window):
        super().__init__()
        self.window = window
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)  # expect: INI001
        nn.init.kaiming_normal_(self.qkv.weight, nonlinearity="linear")
        nn.init.kaiming_normal_(self.proj.weight, nonlinearity="linear")

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return self.proj((q @ k.transpose(-2, -1)).softmax(dim=-1) @ v)


class StackBlock(nn.Module):
    def __init__(self, dim, window_sizes):
        super().__init__()
        self.layers = nn.ModuleList([WindowAttention(dim, size) for size in window_sizes])

    def forward(self, x):
        for attn in self.layers:
            x = x + attn(x)
        return x


class Encoder(nn.Module):
    def __init__(self, dim=64, depth=4, num_stages=2, window_sizes=[(4, 4), (8, 8)]):
        super().__init__()
        if not isinstance(window_sizes[0][0], (list, tuple)):
            window_sizes = [window_sizes for _ in range(num_stages)]
        self.stages = nn.ModuleList(
            [nn.Sequential(*[StackBlock(dim, window_sizes[i]) for _ in range(depth)]) for i in range(num_stages)]
        )

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x
