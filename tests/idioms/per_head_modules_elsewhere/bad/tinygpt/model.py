"""The model stacking heads.py's attention: every Linear drawn with 0.02, no depth factor."""

import torch.nn as nn

from tinygpt.heads import ManyHeads


class Layer(nn.Module):
    def __init__(self, dim, n_head):
        super().__init__()
        self.ln_a = nn.LayerNorm(dim)
        self.attn = ManyHeads(dim, n_head)
        self.ln_m = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)  # expect: INI001

    def forward(self, x):
        x = x + self.attn(self.ln_a(x))
        return x + self.down(self.up(self.ln_m(x)).relu())


class TinyGPT(nn.Module):
    def __init__(self, vocab=1000, dim=128, n_head=4, n_layer=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.Sequential(*[Layer(dim, n_head) for _ in range(n_layer)])
        self.head = nn.Linear(dim, vocab, bias=False)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, idx):
        return self.head(self.layers(self.embed(idx)))
