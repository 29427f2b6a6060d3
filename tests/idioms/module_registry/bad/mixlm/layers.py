import torch.nn as nn
import torch.nn.functional as F

from mixlm.registry import feedforwards, mixers


@mixers.register_class("causal_attention")
class CausalAttention(nn.Module):
    def __init__(self, width, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class GeluMlp(nn.Module):
    def __init__(self, width, ratio=4):
        super().__init__()
        self.expand = nn.Linear(width, ratio * width)
        self.contract = nn.Linear(ratio * width, width)  # expect: INI001

    def forward(self, x):
        return self.contract(F.gelu(self.expand(x)))


feedforwards.register("gelu_mlp", func=GeluMlp)
