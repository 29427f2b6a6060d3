"""A forecasting encoder whose window settings are a list of tuples, one per attention layer of
a block, or a list of such lists, one per stage, told apart by `isinstance(window_sizes[0][0],
(list, tuple))` as the default decides it. The writers are zero-initialised: nothing to report."""
import torch.nn as nn


class WindowAttention(nn.Module):
    def __init__(self, dim, window):
        super().__init__()
        self.window = window
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        nn.init.kaiming_normal_(self.qkv.weight, nonlinearity="linear")
        nn.init.zeros_(self.proj.weight)

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
