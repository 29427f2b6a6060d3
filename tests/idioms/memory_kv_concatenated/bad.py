"""Learned memory keys/values are concatenated in front of the values' share of a fused
projection (`torch.cat((mem_v, v))`) and handed, with queries and keys rotated by another
package's module, to another package's attention kernel: the joined tensor still holds the
values, so the output projection is the writer, and it keeps 0.02 with no depth factor."""
import torch
import torch.nn as nn
from kernels_lib import AttentionKernel
from rotary_lib import Rotary


class MemoryAttention(nn.Module):
    def __init__(self, dim, heads=4, n_mem=8):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.rotary = Rotary(dim // heads)
        self.attend = AttentionKernel(causal=True)
        self.memory = nn.Parameter(torch.zeros(2, n_mem, dim))
        self.to_out = nn.Linear(dim, dim, bias=False)  # expect: INI001

    def forward(self, x):
        h = self.norm(x)
        q, k, v = self.to_qkv(h).chunk(3, dim=-1)
        q, k = self.rotary.rotate_pair(q, k)
        mem_k, mem_v = self.memory.unsqueeze(1).expand(-1, x.shape[0], -1, -1)
        k = torch.cat((mem_k, k), dim=1)
        v = torch.cat((mem_v, v), dim=1)
        out = self.attend(q, k, v)
        return self.to_out(out)


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))  # expect: INI001

    def forward(self, x):
        return self.net(x)


class Transformer(nn.Module):
    def __init__(self, dim=128, depth=6):
        super().__init__()
        self.layers = nn.ModuleList([nn.ModuleList([MemoryAttention(dim), FeedForward(dim)]) for _ in range(depth)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for attn, ff in self.layers:
            x = x + attn(x)
            x = x + ff(x)
        return x
