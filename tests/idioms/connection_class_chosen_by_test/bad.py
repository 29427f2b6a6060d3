"""The stream connection of each branch is one of two hyper-connections classes, picked by the
stream count the model is given; either hands back the branch input and the adder. The
branches are pre-norm and their writers stay at PyTorch's default init."""
import torch.nn as nn
from hyper_connections import HyperConnections, Residual


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mha = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.out = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, x):
        return self.out(self.mha(x, x, x, need_weights=False)[0])


class Block(nn.Module):
    def __init__(self, dim, streams=1):
        super().__init__()
        connection = Residual if streams == 1 else HyperConnections
        self.attn_conn = connection(streams, dim=dim)
        self.ff_conn = connection(streams, dim=dim)
        self.attn_norm = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.ff_norm = nn.LayerNorm(dim)
        self.ff_in = nn.Linear(dim, 4 * dim)
        self.ff_out = nn.Linear(4 * dim, dim)  # expect: INI001

    def forward(self, x):
        h, add = self.attn_conn(x)
        x = add(self.attn(self.attn_norm(h)))
        h, add = self.ff_conn(x)
        x = add(self.ff_out(nn.functional.gelu(self.ff_in(self.ff_norm(h)))))
        return x


class Model(nn.Module):
    def __init__(self, dim, depth, streams=4):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, streams=streams) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
