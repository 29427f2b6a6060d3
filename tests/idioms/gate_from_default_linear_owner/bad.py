"""One modulation module per block hands back every gate of the block (a dict-free tuple), its
projection normal-initialised at 0.02 like every Linear: an O(1) gate, not a zero start. The
writers keep 0.02 with no depth factor."""
import torch.nn as nn
import torch.nn.functional as F


class Modulation(nn.Module):
    def __init__(self, dim, cond_dim):
        super().__init__()
        self.proj = nn.Sequential(nn.SiLU(), nn.Linear(cond_dim, 2 * dim))
        self.ln = nn.LayerNorm(dim)

    def forward(self, x, c):
        a, b = self.proj(c).chunk(2, dim=-1)
        return self.ln(x), a, b


class Block(nn.Module):
    def __init__(self, dim, cond_dim):
        super().__init__()
        self.mod = Modulation(dim, cond_dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.attn_proj = nn.Linear(dim, dim)  # expect: INI001
        self.ln2 = nn.LayerNorm(dim)
        self.fc_in = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)  # expect: INI001

    def forward(self, x, c):
        y, gate_a, gate_f = self.mod(x, c)
        x = x + gate_a * self.attn_proj(self.attn(y, y, y, need_weights=False)[0])
        x = x + gate_f * self.fc_out(F.gelu(self.fc_in(self.ln2(x))))
        return x


class Model(nn.Module):
    def __init__(self, dim=128, cond_dim=64, num_layers=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim, cond_dim) for _ in range(num_layers)])
        self.apply(self._init)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)

    def forward(self, x, c):
        for blk in self.blocks:
            x = blk(x, c)
        return x
