"""Each setting may be one value for every stage or a tuple of one per stage: a helper turns a
lone value into a tuple as long as the stages, and the stages are built from the settings
zipped together. `width` has no default, so which of the two it is cannot be seen; a window
left at None picks a plain linear mixer, a window size a windowed one from elsewhere. Both
writers keep PyTorch's default init."""

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
            self.mixer = mixer_class(width, width)  # expect: INI001
        self.ff_norm = nn.LayerNorm(width)
        self.ff_in = nn.Linear(width, 2 * width)
        self.ff_out = nn.Linear(2 * width, width)  # expect: INI001

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
