"""Every `forward` takes its inputs keyword-only (`def forward(self, *, x, mask)`), and the
model calls the layers by keyword (`layer(x=x, mask=mask)`)."""
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)  # expect: INI001

    def forward(self, *, query, mask=None):
        q, k, v = self.qkv(query).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm_1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm_2 = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)  # expect: INI001

    def forward(self, *, x, mask=None):
        x = x + self.attn(query=self.norm_1(x), mask=mask)
        return x + self.down(F.gelu(self.fc(self.norm_2(x))))


class Model(nn.Module):
    def __init__(self, dim=256, depth=12):
        super().__init__()
        self.embed = nn.Embedding(1000, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, idx, mask=None):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x=x, mask=mask)
        return x
