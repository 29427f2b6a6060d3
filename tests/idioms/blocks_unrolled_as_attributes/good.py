"""A speech encoder whose three pre-norm blocks are separate attributes chained by hand:
the writers are drawn with std 0.02/sqrt(2 * 3), the two adds of each of the three blocks.
A pair of blocks chained with a layer between them (`self.down`) is no stack of copies, nor are
blocks applied to other inputs, two applied side by side in one statement, or one wrapper class
around different branches (`Residual(attn)`, `Residual(mlp)`)."""
import math

import torch.nn as nn
import torch.nn.functional as F


class EncoderBlock(nn.Module):
    def __init__(self, dim=256, hidden=1024, n_blocks=3):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.norm_2 = nn.LayerNorm(dim)
        self.linear_1 = nn.Linear(dim, hidden)
        self.linear_2 = nn.Linear(hidden, dim)
        std = 0.02 / math.sqrt(2 * n_blocks)
        nn.init.normal_(self.attn.out_proj.weight, std=std)
        nn.init.normal_(self.linear_2.weight, std=std)

    def forward(self, x, mask=None):
        h = self.norm_1(x)
        h, _ = self.attn(h, h, h, key_padding_mask=mask)
        x = x + h
        h = self.linear_2(F.relu(self.linear_1(self.norm_2(x))))
        return x + h


class ResidualMlp(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim * 4)
        self.fc2 = nn.Linear(dim * 4, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class SpeechEncoder(nn.Module):
    def __init__(self, vocab=100, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.block_1 = EncoderBlock(dim)
        self.block_2 = EncoderBlock(dim)
        self.block_3 = EncoderBlock(dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, tokens, mask=None):
        x = self.embed(tokens)
        x = self.block_1(x, mask=mask)
        x = self.block_2(x, mask=mask)
        x = self.block_3(x, mask=mask)
        return self.norm(x)


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
