"""The language model; the init the training script applies scales the attention output only."""
import torch.nn as nn

from .blocks import Block, CausalSelfAttention
from .init_utils import normal_, residual_std


class GPT(nn.Module):
    def __init__(self, vocab_size=50304, n_embd=768, n_layer=12):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.h = nn.ModuleList([Block(n_embd) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def _init_weights(self, module, n_layer):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            normal_(module.weight)
        if isinstance(module, CausalSelfAttention):
            normal_(module.c_proj.weight, std=residual_std(n_layer))

    def forward(self, idx):
        x = self.wte(idx)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))
