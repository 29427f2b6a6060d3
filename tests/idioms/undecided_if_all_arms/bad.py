"""An init that branches on a config string it cannot decide; no arm scales
the writers, so the result is certain whichever arm runs."""
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)  # expect: INI001
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)  # expect: INI001

    def forward(self, x):
        q, k, v = self.c_attn(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.c_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.h = nn.ModuleList([Block(config.n_embd) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, std=0.02)
        elif isinstance(module, Block) and self.config.init_scheme == "normal":
            for linear in (module.c_attn, module.c_fc):
                nn.init.normal_(linear.weight, std=0.02)
            for linear in (module.c_proj, module.mlp_proj):
                nn.init.normal_(linear.weight, std=0.02)
        elif isinstance(module, Block):
            for linear in (module.c_attn, module.c_fc):
                nn.init.trunc_normal_(linear.weight, std=0.02, a=-0.06, b=0.06)
            for linear in (module.c_proj, module.mlp_proj):
                nn.init.trunc_normal_(linear.weight, std=0.02, a=-0.06, b=0.06)

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
