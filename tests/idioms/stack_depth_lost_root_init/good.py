"""Two towers whose depth the model cannot read (`config["num_layers"]` of a sub-config dict):
the model's type-dispatched init scales every tower's MLP writer, whatever the depth, so the
tower is not analysed alone as if nothing initialised it."""

import math

import torch.nn as nn
from towers_config import TowerConfig


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.fc1 = nn.Linear(config.hidden, 4 * config.hidden)
        self.fc2 = nn.Linear(4 * config.hidden, config.hidden)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


class Layer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.norm = nn.LayerNorm(config.hidden)
        self.mlp = MLP(config)

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Tower(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layers = nn.ModuleList([Layer(config) for _ in range(config["num_layers"])])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class TwoTowers(nn.Module):
    def __init__(self, config):
        super().__init__()
        text_config = config.text_config
        if not isinstance(text_config, dict):
            raise TypeError("text_config must be a dict")
        self.text = Tower(TowerConfig(**text_config))
        self.image = Tower(TowerConfig(**config.image_config))
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, MLP):
            nn.init.normal_(module.fc1.weight, std=0.02)
            nn.init.normal_(module.fc2.weight, std=0.02 / math.sqrt(2 * module.config.num_layers))

    def forward(self, text, image):
        return self.text(text), self.image(image)
