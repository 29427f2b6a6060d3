"""Layers written out with their own weight tensors and contracted with the input by
`torch.tensordot` (the heads-split output projection of a JAX-ported ViT) or `torch.inner`
(a feed-forward down projection): both are linear layers, so the branches they end write into
the stream and owe a depth factor that nothing gives them. A layer's `weight` is reported where
the layer is built, a matrix of another name where it is created."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class HeadMerge(nn.Module):
    def __init__(self, heads, head_dim, width):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(heads, head_dim, width) * 0.02)
        self.bias = nn.Parameter(torch.zeros(width))

    def forward(self, h):
        return torch.tensordot(h, self.weight, dims=([2, 3], [0, 1])) + self.bias


class RowProjection(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.rows = nn.Parameter(torch.empty(n_out, n_in))  # expect: INI001
        nn.init.normal_(self.rows, std=0.02)

    def forward(self, h):
        return torch.inner(h, self.rows)


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.merge = HeadMerge(heads, width // heads, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).unflatten(-1, (3, self.heads, -1)).transpose(1, 3).unbind(1)
        return self.merge(F.scaled_dot_product_attention(q, k, v).transpose(1, 2))


class FeedForward(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.up = nn.Linear(width, 4 * width)
        self.down = RowProjection(4 * width, width)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Layer(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.pre_attn = nn.LayerNorm(width)
        self.attn = Attention(width, heads)
        self.pre_ff = nn.LayerNorm(width)
        self.ff = FeedForward(width)

    def forward(self, x):
        h = self.attn(self.pre_attn(x))
        h += x
        h += self.ff(self.pre_ff(h))
        return h


class ViTEncoder(nn.Module):
    def __init__(self, width=192, heads=3, depth=12):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(Layer(width, heads))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
