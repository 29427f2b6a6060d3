"""Modules of one class chained by hand that are no stack of copies: a pair with a layer
between them (`self.down`), blocks applied to other inputs, two applied side by side in one
statement, and one wrapper class around different branches (`Residual(attn)`, `Residual(mlp)`)."""
import torch.nn as nn
import torch.nn.functional as F


class ResidualMlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim * 4)
        self.fc2 = nn.Linear(dim * 4, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class TwoTowers(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.left = ResidualMlp(dim)
        self.down = nn.Linear(dim, dim)
        self.right = ResidualMlp(dim)
        self.text = ResidualMlp(dim)
        self.image = ResidualMlp(dim)

    def forward(self, x, text, image):
        x = self.right(self.down(self.left(x)))
        return x + self.text(text) + self.image(image)


class SideBySide(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.left = ResidualMlp(dim)
        self.right = ResidualMlp(dim)

    def forward(self, x):
        x = self.left(x) + self.right(x)
        return x


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return x + self.fn(x)


class PreNormMlp(nn.Module):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * mult), nn.GELU(), nn.Linear(dim * mult, dim))

    def forward(self, x):
        return self.net(x)


class MidBlock(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.wide = Residual(PreNormMlp(dim, mult=4))
        self.narrow = Residual(PreNormMlp(dim, mult=2))

    def forward(self, x):
        x = self.wide(x)
        x = self.narrow(x)
        return x
