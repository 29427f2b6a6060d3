"""Feed-forward layers, and a mixture that sums a list of them: every expert reads the same
input and adds into a fresh accumulator, none reads what another returned."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedFeedForward(nn.Module):
    def __init__(self, width, hidden):
        super().__init__()
        self.gate = nn.Linear(width, hidden, bias=False)
        self.value = nn.Linear(width, hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.value(x))


class SummedExperts(nn.Module):
    def __init__(self, width, hidden, count=4):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.experts = nn.ModuleList([GatedFeedForward(width, hidden) for _ in range(count)])
        self.merge = nn.Linear(width, width, bias=False)

    def forward(self, x):
        h = self.norm(x)
        total = torch.zeros_like(h)
        for expert in self.experts:
            total += expert(h)
        return self.merge(total)
