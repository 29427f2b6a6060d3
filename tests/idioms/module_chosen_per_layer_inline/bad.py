"""A hybrid stack: the layers the config lists are attention blocks, the others recurrent
mixer blocks, chosen inline in the generator that fills the list. Both kinds are pre-norm and
the init gives every linear std 0.02, the writers of either kind included."""
import torch.nn as nn
import torch.nn.functional as F


class HybridConfig:
    def __init__(self, width=256, layers=16, attention_at=(4, 12)):
        self.width = width
        self.layers = layers
        self.attention_at = tuple(attention_at)


class Recurrence(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.into = nn.Linear(width, width, bias=False)
        self.emit = nn.Linear(width, width, bias=False)  # expect: INI001

    def forward(self, x):
        return self.emit(self.into(x).cumsum(dim=1))


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.back = nn.Linear(width, width, bias=False)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.back(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class RecurrentBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm = nn.RMSNorm(config.width)
        self.mixer = Recurrence(config.width)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class AttentionBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm = nn.RMSNorm(config.width)
        self.attn = Attention(config.width)

    def forward(self, x):
        return x + self.attn(self.norm(x))


class Hybrid(nn.Module):
    def __init__(self, config: HybridConfig):
        super().__init__()
        chosen = set(config.attention_at)
        self.blocks = nn.ModuleList(
            AttentionBlock(config) if i in chosen else RecurrentBlock(config) for i in range(config.layers)
        )
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
