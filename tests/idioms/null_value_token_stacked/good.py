"""A learned null value joined to the values with `torch.cat([...])`; the writers are zeroed
at construction (a zero-initialised writer is deliberate), so nothing is reported."""
import torch
import torch.nn as nn
from ext_attention import Core, Positions


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.ln_attn = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.pos = Positions(width // heads)
        self.core = Core(dropout=0.0)
        self.null_v = nn.Parameter(torch.randn(1, 1, width))
        self.proj = nn.Linear(width, width)
        self.ln_mlp = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 2 * width)
        self.fc_back = nn.Linear(2 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.ln_attn(x)).split(x.shape[-1], dim=-1)
        q = self.pos.rotate(q)
        k = self.pos.rotate(k)
        v = torch.cat([self.null_v.expand(x.shape[0], -1, -1), v], dim=1)
        x = x + self.proj(self.core(q, k, v))
        x = x + self.fc_back(torch.relu(self.fc(self.ln_mlp(x))))
        return x


class Encoder(nn.Module):
    def __init__(self, width=96, heads=4, num_blocks=10):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(width, heads) for _ in range(num_blocks)])
        self.ln_out = nn.LayerNorm(width)
        for block in self.blocks:
            nn.init.zeros_(block.proj.weight)
            nn.init.zeros_(block.fc_back.weight)

    def forward(self, x):
        return self.ln_out(self.blocks(x))
