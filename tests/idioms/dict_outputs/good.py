"""Sub-layers that return their output in a dict beside values handed through
(`{"hidden_states": out, "mask": mask}`), read back by key in the block's `forward`."""
import math

import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.merge_heads = nn.Linear(width, width)

    def forward(self, hidden_states, mask):
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        out = self.merge_heads(F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
        return {"hidden_states": out, "mask": mask}


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.expand = nn.Linear(width, 4 * width)
        self.shrink = nn.Linear(4 * width, width)

    def forward(self, hidden_states):
        return {"hidden_states": self.shrink(F.gelu(self.expand(hidden_states)))}


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attn = SelfAttention(width)
        self.norm2 = nn.LayerNorm(width)
        self.ff = FeedForward(width)

    def forward(self, hidden_states, mask):
        output = self.attn(self.norm1(hidden_states), mask=mask)
        hidden_states = hidden_states + output["hidden_states"]
        hidden_states = hidden_states + self.ff(self.norm2(hidden_states))["hidden_states"]
        return {"hidden_states": hidden_states, "mask": output["mask"]}


class Model(nn.Module):
    def __init__(self, width=256, n_layer=8):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(n_layer)])
        for name, param in self.named_parameters():
            if name.endswith(("merge_heads.weight", "shrink.weight")):
                nn.init.normal_(param, std=0.02 / math.sqrt(2 * n_layer))
            elif param.dim() == 2:
                nn.init.normal_(param, std=0.02)

    def forward(self, x, mask):
        for block in self.blocks:
            x = block(x, mask)["hidden_states"]
        return x
