"""A memory model whose `init_memory(batch, device)` draws a fresh memory tensor for each sequence; the
writers are zero-initialised (a deliberate scheme)."""
import torch
import torch.nn as nn


class GatedFeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.RMSNorm(dim)
        self.w_in = nn.Linear(dim, 2 * dim)
        self.w_out = nn.Linear(dim, dim)

    def forward(self, x):
        a, b = self.w_in(self.norm(x)).chunk(2, dim=-1)
        return self.w_out(a * torch.sigmoid(b))


class MemoryNet(nn.Module):
    def __init__(self, dim=64, slots=8, layers=6):
        super().__init__()
        self.dim, self.slots = dim, slots
        self.blocks = nn.ModuleList([GatedFeedForward(dim) for _ in range(layers)])
        for block in self.blocks:
            nn.init.zeros_(block.w_out.weight)

    def init_memory(self, batch, device=None):
        memory = torch.empty(batch, self.slots, self.dim, device=device)
        memory.normal_(0.0, 0.02)
        return memory

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return x
