"""Hyper-connections (the `hyper_connections` package): a connection module called on the stream
hands back the branch input and a function; calling that function with the branch output adds it
back into the stream. A connection built around its branch (`init(dim=..., branch=...)`) makes the
add itself. Each branch normalises its own input (pre-norm) and the blocks are stacked, so every
writer without the depth factor is a finding."""

import torch.nn as nn
import torch.nn.functional as F
from hyper_connections import get_init_and_expand_reduce_stream_functions


class SelfMix(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.merge = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.pre(x)).chunk(3, dim=-1)
        return self.merge(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Feed(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.pre = nn.LayerNorm(width)
        self.widen = nn.Linear(width, 4 * width)
        self.narrow = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        return self.narrow(F.gelu(self.widen(self.pre(x))))


class Network(nn.Module):
    def __init__(self, width=64, cells=6, streams=4):
        super().__init__()
        self.lookup = nn.Embedding(300, width)
        connect, self.expand, self.reduce = get_init_and_expand_reduce_stream_functions(streams, dim=width)
        self.cells = nn.ModuleList(
            [nn.ModuleList([connect(), SelfMix(width), connect(branch=Feed(width))]) for _ in range(cells)]
        )
        self.final = nn.LayerNorm(width)
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, tokens):
        stream = self.expand(self.lookup(tokens))
        for mix_connection, mix, feed in self.cells:
            mix_input, add_mix = mix_connection(stream)
            stream = add_mix(mix(mix_input))
            stream = feed(stream)
        return self.final(self.reduce(stream))
