"""A GPT-2 in the Hugging Face layout: a pretrained-model base with `_init_weights` and `post_init`.

initlint: no findings

`post_init()` applies `_init_weights` to every module. `nn.Module.apply` visits children before
their parent, so each `c_proj` linear first gets the generic normal(0, initializer_range); the
`isinstance(module, (GPTAttention, GPTMLP))` branch then runs on the parent and redraws
`module.c_proj.weight` with initializer_range / sqrt(2 * num_hidden_layers).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGPTConfig:
    def __init__(
        self,
        vocab_size: int = 50257,
        max_position_embeddings: int = 1024,
        hidden_size: int = 768,
        num_hidden_layers: int = 12,
        num_attention_heads: int = 12,
        layer_norm_epsilon: float = 1e-5,
        initializer_range: float = 0.02,
        dropout: float = 0.1,
    ):
        self.vocab_size = vocab_size
        self.max_position_embeddings = max_position_embeddings
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.layer_norm_epsilon = layer_norm_epsilon
        self.initializer_range = initializer_range
        self.dropout = dropout


class GPTAttention(nn.Module):
    def __init__(self, config: TinyGPTConfig):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.c_attn = nn.Linear(config.hidden_size, 3 * config.hidden_size)
        self.c_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)

    def _split_heads(self, tensor: torch.Tensor) -> torch.Tensor:
        batch, seq_len, _ = tensor.shape
        return tensor.view(batch, seq_len, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None):
        query, key, value = self.c_attn(hidden_states).split(self.num_heads * self.head_dim, dim=2)
        query, key, value = self._split_heads(query), self._split_heads(key), self._split_heads(value)
        scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(self.head_dim)
        seq_len = hidden_states.shape[1]
        causal = torch.ones(seq_len, seq_len, dtype=torch.bool, device=scores.device).tril()
        scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
        if attention_mask is not None:
            scores = scores + attention_mask
        attn_weights = self.attn_dropout(F.softmax(scores, dim=-1))
        attn_output = torch.matmul(attn_weights, value)
        attn_output = attn_output.transpose(1, 2).reshape(hidden_states.shape)
        attn_output = self.resid_dropout(self.c_proj(attn_output))
        return attn_output, attn_weights


class GPTMLP(nn.Module):
    def __init__(self, config: TinyGPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(config.hidden_size, 4 * config.hidden_size)
        self.c_proj = nn.Linear(4 * config.hidden_size, config.hidden_size)
        self.act = nn.GELU(approximate="tanh")
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states = self.act(self.c_fc(hidden_states))
        hidden_states = self.c_proj(hidden_states)
        return self.dropout(hidden_states)


class GPTBlock(nn.Module):
    def __init__(self, config: TinyGPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_epsilon)
        self.attn = GPTAttention(config)
        self.ln_2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_epsilon)
        self.mlp = GPTMLP(config)

    def forward(self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        residual = hidden_states
        hidden_states = self.ln_1(hidden_states)
        attn_output, _ = self.attn(hidden_states, attention_mask)
        hidden_states = residual + attn_output
        residual = hidden_states
        hidden_states = self.ln_2(hidden_states)
        hidden_states = self.mlp(hidden_states)
        hidden_states = residual + hidden_states
        return hidden_states


class TinyGPTPreTrainedModel(nn.Module):
    """What a pretrained-model base class provides: the config and the init entry point."""

    def __init__(self, config: TinyGPTConfig):
        super().__init__()
        self.config = config

    def post_init(self) -> None:
        self.apply(self._init_weights)

    def _init_weights(self, module: nn.Module) -> None:
        std = self.config.initializer_range
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=std)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=std)
        elif isinstance(module, nn.LayerNorm):
            module.weight.data.fill_(1.0)
            module.bias.data.zero_()

        if isinstance(module, (GPTAttention, GPTMLP)):
            module.c_proj.weight.data.normal_(mean=0.0, std=std / math.sqrt(2 * self.config.num_hidden_layers))


class TinyGPTForCausalLM(TinyGPTPreTrainedModel):
    def __init__(self, config: TinyGPTConfig):
        super().__init__(config)
        self.wte = nn.Embedding(config.vocab_size, config.hidden_size)
        self.wpe = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.drop = nn.Dropout(config.dropout)
        self.h = nn.ModuleList([GPTBlock(config) for _ in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_epsilon)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        position_ids = torch.arange(input_ids.shape[1], device=input_ids.device)
        hidden_states = self.drop(self.wte(input_ids) + self.wpe(position_ids))
        for block in self.h:
            hidden_states = block(hidden_states, attention_mask)
        return self.lm_head(self.ln_f(hidden_states))
