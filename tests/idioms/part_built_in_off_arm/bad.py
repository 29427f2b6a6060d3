"""A segmentation-style model that builds its text tower only when training with text
(`use_text_tower`, off by default), and runs no init code: the tower, analysed on its own,
keeps PyTorch's default init on its writers."""

import torch.nn as nn
import torch.nn.functional as F


class ModelConfig:
    def __init__(self, hidden=256, text_layers=6, use_text_tower=False):
        self.hidden = hidden
        self.text_layers = text_layers
        self.use_text_tower = use_text_tower


class TextLayer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out_proj = nn.Linear(width, width)  # expect: INI001
        self.ln_2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 4 * width)
        self.fc2 = nn.Linear(4 * width, width)  # expect: INI001

    def forward(self, x):
        q, k, v = self.qkv(self.ln_1(x)).chunk(3, dim=-1)
        x = x + self.out_proj(F.scaled_dot_product_attention(q, k, v))
        return x + self.fc2(F.gelu(self.fc1(self.ln_2(x))))


class TextTower(nn.Module):
    def __init__(self, width, layers):
        super().__init__()
        self.width = width
        self.num_layers = layers
        self.layers = nn.Sequential(*[TextLayer(width) for _ in range(layers)])

    def forward(self, x):
        return self.layers(x)


class TextMapper(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.tower = TextTower(config.hidden, config.text_layers)
        self.proj = nn.Linear(config.hidden, config.hidden)

    def forward(self, x):
        return self.proj(self.tower(x))


class SegmentationModel(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.backbone = nn.Conv2d(3, config.hidden, 3, padding=1)
        self.head = nn.Conv2d(config.hidden, 1, 1)
        if config.use_text_tower:
            self.text_mapper = TextMapper(config)
        else:
            self.text_mapper = None

    def forward(self, images):
        return self.head(self.backbone(images))
