"""A pre-norm wrapper written as a subclass of `nn.ModuleList` that holds no list: its
`super().__init__()` is given no layers, its parts are attributes, and calling it runs its own
`forward` (ModuleList has none). A list subclass that appends its entries and walks itself in
its own `forward` is still a list. The stacks' writers keep PyTorch's default init."""

from torch import nn


class NormFirst(nn.ModuleList):
    def __init__(self, width, body):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.body = body

    def forward(self, x):
        return self.body(self.norm(x))


class Mixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inner = nn.Linear(width, 2 * width)
        self.outer = nn.Linear(2 * width, width)  # expect: INI001

    def forward(self, x):
        return self.outer(self.inner(x).tanh())


class Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.steps = nn.ModuleList([NormFirst(width, Mixer(width)) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(width)

    def forward(self, x):
        for step in self.steps:
            x = x + step(x)
        return self.final_norm(x)


class Cell(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        return x + self.proj(self.norm(x))


class Cells(nn.ModuleList):
    def __init__(self, width, depth):
        super().__init__()
        for _ in range(depth):
            self.append(Cell(width))

    def forward(self, x):
        for cell in self:
            x = cell(x)
        return x


class Column(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.cells = Cells(width, depth)

    def forward(self, x):
        return self.cells(x)
