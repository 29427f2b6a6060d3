"""Learned gates (LayerScale) that start at one (a module of its own, HF Dinov2's layout, with
the config's `layerscale_value = 1.0`; a block's `self.gamma * h`, `init_values=1.0`) are the
identity at step zero: the writers' init has no depth factor. Only a small start is the scheme."""

import torch
import torch.nn as nn


class EncoderConfig:
    def __init__(self, hidden_size=64, num_hidden_layers=12, layerscale_value=1.0, initializer_range=0.02):
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.layerscale_value = layerscale_value
        self.initializer_range = initializer_range


class LayerScale(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.lambda1 = nn.Parameter(config.layerscale_value * torch.ones(config.hidden_size))

    def forward(self, hidden_state):
        return hidden_state * self.lambda1


class EncoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        d = config.hidden_size
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, d)
        self.dense = nn.Linear(d, d)  # expect: INI001
        self.layer_scale1, self.layer_scale2 = LayerScale(config), LayerScale(config)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)  # expect: INI001

    def forward(self, hidden_states):
        attention_output = self.dense(torch.tanh(self.qkv(self.norm1(hidden_states))))
        hidden_states = self.layer_scale1(attention_output) + hidden_states
        layer_output = self.fc2(nn.functional.gelu(self.fc1(self.norm2(hidden_states))))
        return self.layer_scale2(layer_output) + hidden_states


class Encoder(nn.Module):
    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.config = config
        self.layer = nn.ModuleList([EncoderLayer(config) for _ in range(config.num_hidden_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.trunc_normal_(module.weight, std=self.config.initializer_range)

    def forward(self, hidden_states):
        for layer in self.layer:
            hidden_states = layer(hidden_states)
        return hidden_states


class MixerBlock(nn.Module):
    def __init__(self, dim, init_values):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc_in = nn.Linear(dim, 2 * dim)
        self.fc_out = nn.Linear(2 * dim, dim)  # expect: INI001
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x + self.gamma * self.fc_out(torch.relu(self.fc_in(self.norm(x))))


class Mixer(nn.Module):
    def __init__(self, dim=32, depth=10, init_values=1.0):
        super().__init__()
        self.blocks = nn.Sequential(*[MixerBlock(dim, init_values) for _ in range(depth)])

    def forward(self, x):
        return self.blocks(x)
