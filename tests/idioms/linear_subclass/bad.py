"""Writers built from a custom nn.Linear subclass that carries its own reset_parameters;
the MLP writer is built with the default std."""
import math

import torch.nn as nn
import torch.nn.functional as F


class CastedLinear(nn.Linear):
    def __init__(self, in_features, out_features, std=0.02):
        self.init_std = std
        super().__init__(in_features, out_features, bias=False)

    def reset_parameters(self):
        nn.init.normal_(self.weight, mean=0.0, std=self.init_std)

    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype))


class Block(nn.Module):
    def __init__(self, dim, n_layer):
        super().__init__()
        resid_std = 0.02 / math.sqrt(2 * n_layer)
        self.ln_1 = nn.LayerNorm(dim)
        self.c_attn = CastedLinear(dim, 3 * dim)
        self.c_proj = CastedLinear(dim, dim, std=resid_std)
        self.ln_2 = nn.LayerNorm(dim)
        self.c_fc = CastedLinear(dim, 4 * dim)
        self.mlp_proj = CastedLinear(4 * dim, dim)  # expect: INI001

    def forward(self, x):
        q, k, v = self.c_attn(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.c_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp_proj(F.relu(self.c_fc(self.ln_2(x))).square())


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, dim=768, n_layer=12):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList([Block(dim, n_layer) for _ in range(n_layer)])
        self.lm_head = CastedLinear(dim, vocab_size)

    def forward(self, idx):
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(F.layer_norm(x, (x.size(-1),)))
