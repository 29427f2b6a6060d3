"""The model's settings are a pydantic model: its annotated fields with their defaults are the
default config, as a dataclass's are. The default placement builds pre-norm layers, and the
writer's init is scaled by the depth."""
import torch.nn as nn
from pydantic import BaseModel, Field


class MixerSettings(BaseModel):
    width: int = Field(default=512, gt=0)
    expansion: int = 4
    depth: int = 8


class Settings(MixerSettings):
    placement: str = "before"


class Mixer(nn.Module):
    def __init__(self, settings: MixerSettings):
        super().__init__()
        self.up = nn.Linear(settings.width, settings.expansion * settings.width)
        self.down = nn.Linear(settings.expansion * settings.width, settings.width)
        nn.init.normal_(self.down.weight, std=0.02 / settings.depth**0.5)

    def forward(self, x):
        return self.down(self.up(x).relu())


class NormFirst(nn.Module):
    def __init__(self, settings: MixerSettings):
        super().__init__()
        self.norm = nn.LayerNorm(settings.width)
        self.mixer = Mixer(settings)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class NormAfter(nn.Module):
    def __init__(self, settings: MixerSettings):
        super().__init__()
        self.norm = nn.LayerNorm(settings.width)
        self.mixer = Mixer(settings)

    def forward(self, x):
        return self.norm(x + self.mixer(x))


class Stack(nn.Module):
    def __init__(self, settings: Settings):
        super().__init__()
        self.layers = nn.ModuleList([self.layer(settings) for _ in range(settings.depth)])

    def layer(self, settings: Settings) -> nn.Module:
        match settings.placement:
            case "before":
                return NormFirst(settings)
            case "after":
                return NormAfter(settings)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
