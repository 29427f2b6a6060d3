"""Two mixers run side by side and are summed with learned weights that start at 0.5 (a mix,
not a gate that starts small, as ReZero's zero or LayerScale's 1e-5 is): each branch keeps its
writer's scale, and the writers at 0.02 lack the depth factor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvMixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inp = nn.Linear(width, width)
        self.conv = nn.Conv1d(width, width, 4, padding=3, groups=width)
        self.outp = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        h = self.conv(self.inp(x).transpose(1, 2))[..., : x.shape[1]].transpose(1, 2)
        return self.outp(F.silu(h))


class AttnMixer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.outp = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.outp(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_mix = nn.LayerNorm(width)
        self.conv_mix = ConvMixer(width)
        self.attn_mix = AttnMixer(width)
        self.w_conv = nn.Parameter(torch.tensor(0.5))
        self.w_attn = nn.Parameter(torch.tensor(0.5))
        self.norm_ff = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        h = self.norm_mix(x)
        x = x + self.w_conv * self.conv_mix(h) + self.w_attn * self.attn_mix(h)
        return x + self.down(F.gelu(self.up(self.norm_ff(x))))


class Net(nn.Module):
    def __init__(self, width=128, n_layers=12):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(n_layers)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
