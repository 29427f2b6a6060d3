"""An encoder whose config picks post-norm layers by default, pre-norm ones with `pre_norm`: the
init scales the pre-norm writers by the depth, so the model built with the flag on is sound too."""

import math
import torch.nn as nn
import torch.nn.functional as F


class EncoderConfig:
    def __init__(self, width=256, layers=12, pre_norm=False, init_std=0.02):
        self.width = width
        self.layers = layers
        self.pre_norm = pre_norm
        self.init_std = init_std


class PostNormLayer(nn.Module):
    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.out_proj = nn.Linear(config.width, config.width)
        self.norm_1 = nn.LayerNorm(config.width)
        self.fc1 = nn.Linear(config.width, 4 * config.width)
        self.fc2 = nn.Linear(4 * config.width, config.width)
        self.norm_2 = nn.LayerNorm(config.width)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        x = self.norm_1(x + self.out_proj(F.scaled_dot_product_attention(q, k, v)))
        return self.norm_2(x + self.fc2(F.gelu(self.fc1(x))))


class PreNormLayer(nn.Module):
    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.norm_1 = nn.LayerNorm(config.width)
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.out_proj = nn.Linear(config.width, config.width)
        self.norm_2 = nn.LayerNorm(config.width)
        self.fc1 = nn.Linear(config.width, 4 * config.width)
        self.fc2 = nn.Linear(4 * config.width, config.width)

    def forward(self, x):
        q, k, v = self.qkv(self.norm_1(x)).chunk(3, dim=-1)
        x = x + self.out_proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.fc2(F.gelu(self.fc1(self.norm_2(x))))


class PostNormEncoder(nn.Sequential):
    def __init__(self, config: EncoderConfig):
        super().__init__(*[PostNormLayer(config) for _ in range(config.layers)])


class PreNormEncoder(nn.Sequential):
    def __init__(self, config: EncoderConfig):
        super().__init__(*[PreNormLayer(config) for _ in range(config.layers)], nn.LayerNorm(config.width))


class AudioModel(nn.Module):
    def __init__(self, config: EncoderConfig):
        super().__init__()
        self.config = config
        self.frontend = nn.Linear(80, config.width)
        if config.pre_norm:
            self.encoder = PreNormEncoder(config)
        else:
            self.encoder = PostNormEncoder(config)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=self.config.init_std)
            nn.init.zeros_(module.bias)
        if isinstance(module, PreNormLayer):  # after its own layers: `apply` visits children first
            depth_std = self.config.init_std / math.sqrt(2 * self.config.layers)
            nn.init.normal_(module.out_proj.weight, std=depth_std)
            nn.init.normal_(module.fc2.weight, std=depth_std)

    def forward(self, features):
        return self.encoder(self.frontend(features))
