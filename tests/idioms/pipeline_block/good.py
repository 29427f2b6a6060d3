"""nanotron-style pipeline stages: each decoder layer is built by a `PipelineBlock` wrapper from
`module_builder` and `module_kwargs`; both writers are depth-scaled."""
import math

import torch.nn as nn
import torch.nn.functional as F
from nanotron.parallel.pipeline_parallel.block import PipelineBlock


class CausalSelfAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.qkv_proj = nn.Linear(hidden_size, 3 * hidden_size, bias=False)
        self.o_proj = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states):
        q, k, v = self.qkv_proj(hidden_states).chunk(3, dim=-1)
        return self.o_proj(F.scaled_dot_product_attention(q, k, v, is_causal=True))


class DecoderLayer(nn.Module):
    def __init__(self, hidden_size, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.input_layernorm = nn.RMSNorm(hidden_size)
        self.attn = CausalSelfAttention(hidden_size)
        self.post_attention_layernorm = nn.RMSNorm(hidden_size)
        self.gate_up_proj = nn.Linear(hidden_size, 8 * hidden_size, bias=False)
        self.down_proj = nn.Linear(4 * hidden_size, hidden_size, bias=False)

    def forward(self, hidden_states, sequence_mask):
        hidden_states = hidden_states + self.attn(self.input_layernorm(hidden_states))
        gate, up = self.gate_up_proj(self.post_attention_layernorm(hidden_states)).chunk(2, dim=-1)
        hidden_states = hidden_states + self.down_proj(F.silu(gate) * up)
        return {"hidden_states": hidden_states, "sequence_mask": sequence_mask}


class Model(nn.Module):
    def __init__(self, vocab_size=32000, hidden_size=512, num_hidden_layers=16):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, hidden_size)
        self.decoder = nn.ModuleList(
            [
                PipelineBlock(
                    module_builder=DecoderLayer,
                    module_kwargs={"hidden_size": hidden_size, "layer_idx": layer_idx},
                    module_input_keys={"hidden_states", "sequence_mask"},
                    module_output_keys={"hidden_states", "sequence_mask"},
                )
                for layer_idx in range(num_hidden_layers)
            ]
        )
        for name, p in self.named_parameters():
            if name.endswith(("attn.o_proj.weight", "down_proj.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * num_hidden_layers))
            elif p.dim() == 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, input_ids, sequence_mask):
        states = {"hidden_states": self.token_embedding(input_ids), "sequence_mask": sequence_mask}
        for block in self.decoder:
            states = block(**states)
        return states["hidden_states"]
