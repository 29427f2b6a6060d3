"""A pre-LN encoder layer in transformers' style: the feed-forward half, whose output module
adds its input back, runs through `apply_chunking_to_forward(fn, chunk_size, dim, *inputs)`,
which is `fn(*inputs)` chunk by chunk. The generic init never scales a writer."""
import torch.nn as nn
from transformers import PretrainedConfig, PreTrainedModel
from transformers.pytorch_utils import apply_chunking_to_forward


class TinyConfig(PretrainedConfig):
    def __init__(self, hidden_size=128, intermediate_size=512, num_hidden_layers=6, initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.initializer_range = initializer_range


class Attention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm = nn.LayerNorm(config.hidden_size)
        self.mix = nn.MultiheadAttention(config.hidden_size, 4, batch_first=True)
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)  # expect: INI001

    def forward(self, hidden):
        normed = self.norm(hidden)
        return hidden + self.dense(self.mix(normed, normed, normed, need_weights=False)[0])


class Output(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)  # expect: INI001

    def forward(self, inner, residual):
        return residual + self.dense(inner)


class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.chunk_size_feed_forward = 0
        self.attention = Attention(config)
        self.norm = nn.LayerNorm(config.hidden_size)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.output = Output(config)

    def forward(self, hidden):
        attended = self.attention(hidden)
        return apply_chunking_to_forward(self.feed_forward_chunk, self.chunk_size_feed_forward, 1, attended)

    def feed_forward_chunk(self, attended):
        inner = nn.functional.gelu(self.intermediate(self.norm(attended)))
        return self.output(inner, attended)


class TinyPreTrainedModel(PreTrainedModel):
    config_class = TinyConfig

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
            module.bias.data.zero_()


class TinyModel(TinyPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.layer = nn.ModuleList([Layer(config) for _ in range(config.num_hidden_layers)])
        self.post_init()

    def forward(self, hidden):
        for layer in self.layer:
            hidden = layer(hidden)
        return hidden
