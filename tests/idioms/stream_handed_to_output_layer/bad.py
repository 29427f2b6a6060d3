"""Each block hands its MLP's last part the stream beside the branch (`self.output(h, x)`),
and that part adds the two itself. Two adds per block into a pre-norm stream: at 0.02, both
writers lack the depth factor."""
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(F.scaled_dot_product_attention(q, k, v))


class Output(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.dense = nn.Linear(4 * width, width)  # expect: INI001
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden, residual):
        return self.dropout(self.dense(hidden)) + residual


class Layer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm_before = nn.LayerNorm(width)
        self.attention = Attention(width)
        self.norm_after = nn.LayerNorm(width)
        self.intermediate = nn.Linear(width, 4 * width)
        self.output = Output(width)

    def forward(self, x):
        x = self.attention(self.norm_before(x)) + x
        hidden = F.gelu(self.intermediate(self.norm_after(x)))
        return self.output(hidden, x)


class Encoder(nn.Module):
    def __init__(self, width=64, num_layers=12):
        super().__init__()
        self.layers = nn.ModuleList([Layer(width) for _ in range(num_layers)])
        self.apply(self._init)

    def _init(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
