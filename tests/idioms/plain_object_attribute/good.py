"""A model keeps a plain helper object (no `nn.Module`) holding scratch tensors: PyTorch does not
register it, so its tensors are no parameters, and an init loop that refuses modules it does not
know never meets them."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SendBuffers:
    def __init__(self, size):
        self.header = torch.empty(size, dtype=torch.long)
        self.payload = torch.empty(size, dtype=torch.long)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, 4 * width)
        self.fc_out = nn.Linear(4 * width, width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.fc_out(F.gelu(self.fc(self.norm2(x))))


class Model(nn.Module):
    def __init__(self, width=256, n_layer=8):
        super().__init__()
        self.buffers_out = SendBuffers(16)
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for name, param in self.named_parameters():
            module = self.get_submodule(name.rsplit(".", 1)[0])
            if isinstance(module, nn.LayerNorm):
                continue
            if not isinstance(module, nn.Linear):
                raise ValueError(f"no init for {name}")
            if name.endswith(("proj.weight", "fc_out.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layer))
            elif name.endswith("weight"):
                nn.init.normal_(param, std=0.02)
            else:
                nn.init.zeros_(param)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
