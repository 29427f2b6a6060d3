"""A hierarchical model builds one stage object per index in a list comprehension; each stage
is handed its index and builds `depths[index]` blocks in a loop of its own, after a
down-sampling layer. The stream runs through sum(depths) pre-norm blocks whose writers keep
the 0.02 the model draws every linear layer with."""

from torch import nn


class Unit(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 2 * width)
        self.down = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x):
        return x + self.down(self.up(self.norm(x)).relu())


class Level(nn.Module):
    def __init__(self, widths, depths, index):
        super().__init__()
        previous = widths[index - 1] if index > 0 else 3
        self.reduce = nn.Linear(previous, widths[index])
        units = []
        for _ in range(depths[index]):
            units.append(Unit(widths[index]))
        self.units = nn.ModuleList(units)

    def forward(self, x):
        x = self.reduce(x)
        for unit in self.units:
            x = unit(x)
        return x


class Hierarchy(nn.Module):
    def __init__(self, widths, depths):
        super().__init__()
        self.levels = nn.ModuleList([Level(widths, depths, i) for i in range(len(depths))])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for level in self.levels:
            x = level(x)
        return x
