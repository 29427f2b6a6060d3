"""adaLN-Zero done after the generic init: the gate projection of every block is zeroed, so
the branches start switched off and the writers at 0.02 are deliberate."""
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
        self.attn_proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc_in = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)

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
        for blk in self.blocks:
            nn.init.zeros_(blk.mod.proj[1].weight)
            nn.init.zeros_(blk.mod.proj[1].bias)

    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)

    def forward(self, x, c):
        for blk in self.blocks:
            x = blk(x, c)
        return x
