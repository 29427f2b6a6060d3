"""Adapter layers slotted between the blocks of a frozen network: each branch is multiplied by
its gate squashed with the tensor method (`self.gate.tanh()`, not `torch.tanh(self.gate)`); the
gates start at zero, so every adapter starts as the identity whatever its writers' init."""

import torch
import torch.nn as nn


class Adapter(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_mix = nn.LayerNorm(width)
        self.mix = nn.MultiheadAttention(width, 4, batch_first=True)
        self.norm_ffn = nn.LayerNorm(width)
        self.expand = nn.Linear(width, 2 * width)
        self.contract = nn.Linear(2 * width, width)
        self.mix_gate = nn.Parameter(torch.zeros(1))
        self.ffn_gate = nn.Parameter(torch.zeros(1))

    def forward(self, h, memory):
        mixed, _ = self.mix(self.norm_mix(h), memory, memory)
        h = h + self.mix_gate.tanh() * mixed
        update = self.contract(torch.relu(self.expand(self.norm_ffn(h))))
        return h + update * self.ffn_gate.tanh()


class AdapterStack(nn.Module):
    def __init__(self, width=128, count=8):
        super().__init__()
        self.adapters = nn.ModuleList(Adapter(width) for _ in range(count))
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, h, memory):
        for adapter in self.adapters:
            h = adapter(h, memory)
        return h
