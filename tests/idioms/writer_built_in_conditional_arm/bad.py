"""An output projection built only with several heads, in one arm of a conditional expression the
statement splits over lines. The finding stands on the line of the call that builds the writer,
which keeps PyTorch's default init: no depth factor."""
import torch.nn as nn


class MultiHead(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = (
            nn.Linear(dim, dim, bias=False) if heads > 1 else None  # expect: INI001
        )

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        out = (q @ k.transpose(-2, -1)).softmax(dim=-1) @ v
        if self.proj is not None:
            out = self.proj(out)
        return out


class Layer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.attend = MultiHead(dim, heads)

    def forward(self, x):
        return x + self.attend(self.norm(x))


class Stack(nn.Module):
    def __init__(self, dim=96, heads=4, depth=8):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dim, heads) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
