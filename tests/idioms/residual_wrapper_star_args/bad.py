"""A residual wrapper that hands on whatever it is given, `forward(self, *args, **kwargs)`, and
adds its first argument back: `self.module(*args, **kwargs) + args[0]`. The layers are
`nn.Sequential`s of two wrapped branches; nothing scales the writers."""

import torch.nn as nn
import torch.nn.functional as F


class Residual(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs) + args[0]


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)  # expect: INI001

    def forward(self, x, mask=None):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


class MLP(nn.Sequential):
    def __init__(self, width):
        super().__init__(
            nn.LayerNorm(width),
            nn.Linear(width, 4 * width),
            nn.GELU(),
            nn.Linear(4 * width, width),  # expect: INI001
        )


class Layer(nn.Sequential):
    def __init__(self, width):
        super().__init__(Residual(Attention(width)), Residual(MLP(width)))


class Model(nn.Module):
    def __init__(self, width=128, depth=6):
        super().__init__()
        self.layers = nn.Sequential(*[Layer(width) for _ in range(depth)])
        for module in self.modules():
            if isinstance(module, nn.Linear):
                module.weight.data.normal_(mean=0.0, std=0.02)

    def forward(self, x):
        return self.layers(x)
