"""The same denoiser with an adaLN-Zero gate: the output is multiplied by `gamma(cond)` alone,
`gamma` zero-initialised, so every block starts switched off (a deliberate scheme)."""
import torch.nn as nn
import torch.nn.functional as F


class AdaNorm(nn.Module):
    def __init__(self, dim, dim_cond):
        super().__init__()
        self.norm = nn.LayerNorm(dim, elementwise_affine=False)
        self.to_scale = nn.Linear(dim_cond, dim, bias=False)
        nn.init.zeros_(self.to_scale.weight)

    def forward(self, x, cond):
        return self.norm(x) * (self.to_scale(cond) + 1.0)


class Denoiser(nn.Module):
    def __init__(self, dim, dim_cond, width=1024, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            block = nn.Sequential(
                nn.Linear(dim, width),
                nn.SiLU(),
                nn.Linear(width, dim),
            )
            gamma = nn.Linear(dim_cond, dim, bias=False)
            nn.init.zeros_(gamma.weight)
            self.layers.append(nn.ModuleList([AdaNorm(dim, dim_cond), block, gamma]))

    def forward(self, x, cond):
        cond = F.silu(cond)
        for norm, block, gamma in self.layers:
            residual = x
            out = block(norm(x, cond)) * gamma(cond)
            x = out + residual
        return x
