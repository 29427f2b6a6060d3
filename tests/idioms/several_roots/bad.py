"""HF-style base model and causal-LM head class; the head class re-runs a
generic init over everything, so `ForCausalLM` (not `Model`) ends with unscaled writers."""
import math

import torch.nn as nn
import torch.nn.functional as F


class DecoderLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(d)
        self.qkv_proj = nn.Linear(d, 3 * d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)  # expect: INI001
        self.post_attention_layernorm = nn.RMSNorm(d)
        self.up_proj = nn.Linear(d, 4 * d, bias=False)
        self.down_proj = nn.Linear(4 * d, d, bias=False)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv_proj(self.input_layernorm(x)).chunk(3, dim=-1)
        x = x + self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return x + self.down_proj(F.silu(self.up_proj(self.post_attention_layernorm(x))))


class PreTrainedModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, DecoderLayer):
            for writer in (module.o_proj, module.down_proj):
                nn.init.normal_(writer.weight, std=0.02 / math.sqrt(2 * self.config.num_hidden_layers))


class Model(PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([DecoderLayer(config.hidden_size) for _ in range(config.num_hidden_layers)])
        self.norm = nn.RMSNorm(config.hidden_size)
        self.apply(self._init_weights)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


class ForCausalLM(PreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.model = Model(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.apply(self._generic_init)

    @staticmethod
    def _generic_init(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, input_ids):
        return self.lm_head(self.model(input_ids))
