"""The root takes its norm class and an optional LayerScale value as parameters with defaults
(`norm_layer=nn.LayerNorm`, `ls_init=None`): built with them, the blocks are pre-norm, without
LayerScale, and the writers get the depth factor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LayerScale(nn.Module):
    def __init__(self, d, value):
        super().__init__()
        self.gamma = nn.Parameter(value * torch.ones(d))

    def forward(self, x):
        return x * self.gamma


class Block(nn.Module):
    def __init__(self, d, norm_layer, ls_init):
        super().__init__()
        self.ln_1 = norm_layer(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ls_1 = LayerScale(d, ls_init) if ls_init is not None else nn.Identity()
        self.ln_2 = norm_layer(d)
        self.fc_1 = nn.Linear(d, 4 * d)
        self.fc_2 = nn.Linear(4 * d, d)
        self.ls_2 = LayerScale(d, ls_init) if ls_init is not None else nn.Identity()

    def forward(self, x):
        q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.ls_1(self.proj(F.scaled_dot_product_attention(q, k, v)))
        return x + self.ls_2(self.fc_2(F.gelu(self.fc_1(self.ln_2(x)))))


class Encoder(nn.Module):
    def __init__(self, width=512, depth=12, norm_layer=nn.LayerNorm, ls_init=None):
        super().__init__()
        self.depth = depth
        self.blocks = nn.ModuleList([Block(width, norm_layer, ls_init) for _ in range(depth)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.trunc_normal_(module.weight, std=0.02)
        if isinstance(module, Block):
            for writer in (module.proj, module.fc_2):
                nn.init.trunc_normal_(writer.weight, std=0.02 / (2 * self.depth) ** 0.5)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
