"""One stream runs through two block lists in turn (a lower and an upper stack): every add of
both lists goes into it, so the writers owe 1/sqrt(2 * n_low + 2 * n_high), and initialising
them with the base std alone leaves them without a depth factor."""
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v))


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_1 = nn.LayerNorm(width)
        self.attn = Attention(width)
        self.norm_2 = nn.LayerNorm(width)
        self.mlp = MLP(width)

    def forward(self, x):
        x = x + self.attn(self.norm_1(x))
        return x + self.mlp(self.norm_2(x))


class TwoStage(nn.Module):
    def __init__(self, width=64, n_low=4, n_high=8):
        super().__init__()
        self.low = nn.ModuleList([Block(width) for _ in range(n_low)])
        self.high = nn.ModuleList([Block(width) for _ in range(n_high)])
        self.mid_norm = nn.LayerNorm(width)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.low:
            x = block(x)
        x = self.mid_norm(x)
        for block in self.high:
            x = block(x)
        return x
