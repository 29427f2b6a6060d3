"""transformers 5's own shapes, in a checkout-like project written here: its `initialization`
module (torch.nn.init behind a per-tensor `_is_hf_initialized` guard) and its `@strict` configs
in a sibling `configuration_*.py`. Registry knowledge (`knowledge/huggingface.py`) must decide
both as transformers runs them on a fresh model, without reading the guard's source."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from initlint.config import Settings
from initlint.engine import lint_file

INITIALIZATION = """
import math

import torch

def normal_(tensor, mean=0.0, std=1.0):
    if not getattr(tensor, "_is_hf_initialized", False):
        return torch.nn.init.normal_(tensor, mean=mean, std=std)
    return tensor

def zeros_(tensor):
    if not getattr(tensor, "_is_hf_initialized", False):
        return torch.nn.init.zeros_(tensor)
    return tensor

def _fan_in_draw(tensor):
    fan_in, _ = torch.nn.init._calculate_fan_in_and_fan_out(tensor)
    torch.nn.init.trunc_normal_(tensor, std=math.sqrt(1.0 / fan_in) / 0.88)

def lecun_normal_(tensor):
    if not getattr(tensor, "_is_hf_initialized", False):
        _fan_in_draw(tensor)
    return tensor
"""

CONFIGURATION = """
from huggingface_hub.dataclasses import strict


@strict
class TinyConfig:
    hidden_size: int = 64
    num_hidden_layers: int = 4
    norm_before: bool = {norm_before}
"""

MODELING = """
import torch.nn as nn

from ... import initialization as init
from .configuration_tiny import TinyConfig


class TinyLayer(nn.Module):
    def __init__(self, config: TinyConfig):
        super().__init__()
        self.norm_before = config.norm_before
        self.ln_1 = nn.LayerNorm(config.hidden_size)
        self.attn_out = nn.Linear(config.hidden_size, config.hidden_size)
        self.ln_2 = nn.LayerNorm(config.hidden_size)
        self.fc_out = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, x):
        if self.norm_before:
            x = x + self.attn_out(self.ln_1(x))
            return x + self.fc_out(self.ln_2(x))
        x = self.ln_1(x + self.attn_out(x))
        return self.ln_2(x + self.fc_out(x))


class TinyModel(nn.Module):
    def __init__(self, config: TinyConfig):
        super().__init__()
        self.layers = nn.ModuleList([TinyLayer(config) for _ in range(config.num_hidden_layers)])
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            init.normal_(module.weight, std=0.02)
            init.zeros_(module.bias)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
"""


def write_checkout(root: Path, norm_before: bool) -> Path:
    files = {
        "pyproject.toml": "[project]\nname = 'transformers'\n",
        "src/transformers/__init__.py": "",
        "src/transformers/initialization.py": INITIALIZATION,
        "src/transformers/models/__init__.py": "",
        "src/transformers/models/tiny/__init__.py": "",
        "src/transformers/models/tiny/configuration_tiny.py": CONFIGURATION.format(norm_before=norm_before),
        "src/transformers/models/tiny/modeling_tiny.py": MODELING,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root / "src/transformers/models/tiny/modeling_tiny.py"


def test_guarded_fan_in_init_is_read_as_the_registry_says(tmp_path, monkeypatch):
    """`init.lecun_normal_` (std 1/sqrt(fan_in), no depth factor) is transformers' own, not a
    torch.nn.init name: its guarded source must not leave the writers' init uncertain."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    model = write_checkout(tmp_path / "checkout", norm_before=True)
    model.write_text(
        model.read_text().replace("init.normal_(module.weight, std=0.02)", "init.lecun_normal_(module.weight)")
    )
    found = [(f.code, f.line) for f in lint_file(model, Settings(select=("INI0",)))]
    assert found == [("INI001", 12), ("INI001", 14)]


@pytest.mark.parametrize("norm_before, expected", [(True, [("INI001", 12), ("INI001", 14)]), (False, [])])
def test_guarded_init_functions_and_strict_config_defaults(tmp_path, monkeypatch, norm_before, expected):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    model = write_checkout(tmp_path / "checkout", norm_before)
    found = [(f.code, f.line) for f in lint_file(model, Settings(select=("INI0",)))]
    assert found == expected
