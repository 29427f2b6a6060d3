"""A block's mixer class picked by an `if`/`elif` chain on a type the caller passes, with a
final `else: raise`; the encoder scales every writer it may hold (either mixer's `out`, the
feed-forward's `w_2`) by sqrt(2 * n_blocks), for the two adds of each block."""
import math

import torch.nn as nn


class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        return self.out(self.qkv(x)[..., : x.shape[-1]])


class ConvMix(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.conv = nn.Conv1d(d, d, k, padding=k // 2)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        return self.out(self.conv(x.transpose(1, 2)).transpose(1, 2))


class FF(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w_1 = nn.Linear(d, 4 * d)
        self.w_2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.w_2(self.w_1(x).relu())


class Layer(nn.Module):
    def __init__(self, d, mixer, ff):
        super().__init__()
        self.mixer = mixer
        self.ff = ff
        self.norm1 = nn.LayerNorm(d)
        self.norm2 = nn.LayerNorm(d)

    def forward(self, x):
        x = x + self.mixer(self.norm1(x))
        return x + self.ff(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, d, n_blocks, mixer_type="attn", kernel=3):
        super().__init__()
        if mixer_type == "attn":
            mixer_class = Attn
            mixer_args = (d,)
        elif mixer_type == "conv":
            mixer_class = ConvMix
            mixer_args = (d, kernel)
        else:
            raise NotImplementedError(mixer_type)
        self.layers = nn.ModuleList([Layer(d, mixer_class(*mixer_args), FF(d)) for _ in range(n_blocks)])
        for name, param in self.named_parameters():
            if name.endswith(("out.weight", "w_2.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_blocks))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Model(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.encoder = Encoder(args.d, args.n_blocks, mixer_type=args.mixer)

    def forward(self, x):
        return self.encoder(x)
