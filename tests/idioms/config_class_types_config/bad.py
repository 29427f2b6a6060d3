"""A Hugging Face model whose `__init__(self, config)` leaves `config` unannotated: the class's
`config_class` (inherited from the pretrained base) says what `from_pretrained` and `from_config`
hand over, so the config's defaults pick the ungated path of `forward`; the init leaves the
writers without the depth factor."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import PretrainedConfig, PreTrainedModel


class StackConfig(PretrainedConfig):
    model_type = "stack"

    def __init__(self, width=96, depth=8, init_std=0.02, layer_scale=False, **kwargs):
        self.width = width
        self.depth = depth
        self.init_std = init_std
        self.layer_scale = layer_scale
        super().__init__(**kwargs)


class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.first_norm = nn.LayerNorm(config.width)
        self.mixer = nn.Linear(config.width, config.width)
        self.mixer_out = nn.Linear(config.width, config.width)  # expect: INI001
        self.second_norm = nn.LayerNorm(config.width)
        self.widen = nn.Linear(config.width, 4 * config.width)
        self.narrow = nn.Linear(4 * config.width, config.width)  # expect: INI001

        self.mixer_gain = nn.Parameter(torch.full((config.width,), 1e-4))
        self.narrow_gain = nn.Parameter(torch.full((config.width,), 1e-4))

    def forward(self, x):
        if not self.config.layer_scale:
            x = x + self.mixer_out(F.relu(self.mixer(self.first_norm(x))))
            x = x + self.narrow(F.gelu(self.widen(self.second_norm(x))))
        else:
            # LayerScale: a learned per-channel gate, small at the start, on each branch
            x = x + self.mixer_gain * self.mixer_out(F.relu(self.mixer(self.first_norm(x))))
            x = x + self.narrow_gain * self.narrow(F.gelu(self.widen(self.second_norm(x))))
        return x


class StackPreTrained(PreTrainedModel):
    config_class = StackConfig

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=self.config.init_std)
            nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, std=self.config.init_std)


class StackModel(StackPreTrained):
    def __init__(self, config):
        super().__init__(config)
        self.embed = nn.Embedding(500, config.width)
        self.layers = nn.ModuleList([Layer(config) for _ in range(config.depth)])
        self.post_init()

    def forward(self, idx):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x)
        return x
