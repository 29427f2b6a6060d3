"""One block class stacked twice in one model (an encoder and a decoder tower): the block
depth-scales its writers only when a constructor flag says so, and the model sets the flag for
the decoder alone. The encoder's copies of the writers keep PyTorch's default init."""

import math

from torch import nn


class Block(nn.Module):
    def __init__(self, width, n_layers, scale_writers=False):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.mix = nn.Linear(width, width)  # expect: INI001
        self.norm2 = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001
        if scale_writers:
            for writer in (self.mix, self.down):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * n_layers))

    def forward(self, x):
        x = x + self.mix(self.norm1(x))
        return x + self.down(self.up(self.norm2(x)).relu())


class Tower(nn.Module):
    def __init__(self, width, depth, scale_writers=False):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, depth, scale_writers) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class EncoderDecoder(nn.Module):
    def __init__(self, width=256, enc_depth=6, dec_depth=6, enc_scale=False, dec_scale=True):
        super().__init__()
        self.encoder = Tower(width, enc_depth, scale_writers=enc_scale)
        self.decoder = Tower(width, dec_depth, scale_writers=dec_scale)

    def forward(self, x):
        return self.decoder(self.encoder(x))
