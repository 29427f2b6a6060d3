"""A small LM on PyTorch's pre-norm encoder layer (norm_first given positionally), re-initialised
by name with GPT-2's depth factor: 1/sqrt(2 * n_layer), two residual adds per layer."""
import math

import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, d=128, n_layer=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        block = nn.TransformerEncoderLayer(d, 4, 4 * d, 0.0, "gelu", 1e-5, True, True)
        self.blocks = nn.TransformerEncoder(block, num_layers=n_layer, norm=nn.LayerNorm(d))
        self.lm_head = nn.Linear(d, vocab, bias=False)
        for name, p in self.named_parameters():
            if name.endswith(("out_proj.weight", "linear2.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * n_layer))
            elif p.dim() > 1:
                nn.init.normal_(p, std=0.02)

    def forward(self, ids, mask):
        return self.lm_head(self.blocks(self.embed(ids), mask=mask, is_causal=True))
