"""A user-defined transformers model with its own PretrainedConfig subclass (defaults only)."""

import torch.nn as nn
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "tiny-initlint"

    def __init__(self, vocab_size=64, hidden=32, n_layer=2, initializer_range=0.02, **kwargs):
        self.vocab_size, self.hidden, self.n_layer = vocab_size, hidden, n_layer
        self.initializer_range = initializer_range
        super().__init__(**kwargs)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln = nn.LayerNorm(config.hidden)
        self.proj = nn.Linear(config.hidden, config.hidden)

    def forward(self, x):
        return x + self.proj(self.ln(x))


class TinyModel(PreTrainedModel):
    config_class = TinyConfig
    base_model_prefix = "tiny"

    def __init__(self, config):
        super().__init__(config)
        self.emb = nn.Embedding(config.vocab_size, config.hidden)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.head = nn.Linear(config.hidden, config.vocab_size, bias=False)
        self.post_init()

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=self.config.initializer_range)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)
        if isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    def forward(self, input_ids):
        x = self.emb(input_ids)
        for block in self.blocks:
            x = block(x)
        return self.head(x)
