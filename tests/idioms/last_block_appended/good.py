"""A list of `n_layers - 1` blocks with the last one appended on its own: all `n_layers` blocks
add into one stream, and the model draws every writer with std 0.02/sqrt(2 * n_layers), the
appended block's too."""
import math

import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim, heads, last=False):
        super().__init__()
        self.heads = heads
        self.last = last
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).transpose(1, 3).unbind(2)
        if self.last:
            q = q[:, :, -1:]
        out = F.scaled_dot_product_attention(q, k, v, is_causal=not self.last)
        return self.proj(out.transpose(1, 2).reshape(b, -1, d))


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Layer(nn.Module):
    def __init__(self, dim, heads, last=False):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, last=last)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = SwiGLU(dim, 4 * dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Encoder(nn.Module):
    def __init__(self, dim, heads, n_layers):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dim, heads) for _ in range(n_layers - 1)])
        self.layers.append(Layer(dim, heads, last=True))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


class Forecaster(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Linear(config["patch"], config["dim"])
        self.encoder = Encoder(config["dim"], config["heads"], config["n_layers"])
        self.head = nn.Linear(config["dim"], config["patch"])
        for name, p in self.named_parameters():
            if name.endswith(("proj.weight", "down.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * config["n_layers"]))

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)))
