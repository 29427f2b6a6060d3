"""bad.py with both writers zero-initialised: each block starts as the identity (the settings
still cast to one tuple entry per stage and zipped)."""

from functools import partial

from torch import nn

from windowed import WindowedLinear


def present(value):
    return value is not None


def per_stage(value, stages=1):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * stages


class Block(nn.Module):
    def __init__(self, width, window=None):
        super().__init__()
        self.mixer = None
        if window != 0:
            mixer_class = nn.Linear
            if present(window):
                mixer_class = partial(WindowedLinear, window=window)
            self.norm = nn.LayerNorm(width)
            self.mixer = mixer_class(width, width)
        self.ff_norm = nn.LayerNorm(width)
        self.ff_in = nn.Linear(width, 2 * width)
        self.ff_out = nn.Linear(2 * width, width)
        for writer in (self.mixer, self.ff_out):
            if writer is not None:
                nn.init.zeros_(writer.weight)

    def forward(self, x):
        if present(self.mixer):
            x = x + self.mixer(self.norm(x))
        return x + self.ff_out(self.ff_in(self.ff_norm(x)).relu())


class Model(nn.Module):
    def __init__(self, width, depth, strides=1, windows=None):
        super().__init__()
        strides = per_stage(strides)
        widths = per_stage(width, len(strides))
        windows = per_stage(windows, len(strides))
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            stages = nn.ModuleList([])
            for stride, stage_width, window in zip(strides, widths, windows):
                if present(window) and window > 1024 // stride:
                    window = None
                stages.append(Block(stage_width, window))
            self.layers.append(stages)

    def forward(self, x):
        for stages in self.layers:
            for block in stages:
                x = block(x)
        return x
