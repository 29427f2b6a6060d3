"""An attention class whose base lives in this file, used by a model in another file."""
import torch.nn as nn
import torch.nn.functional as F


class AttentionBase(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out_proj = nn.Linear(width, width)
        self.out_proj.depth_scaled = True

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class CausalAttention(AttentionBase):
    pass
