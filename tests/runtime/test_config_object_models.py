"""`--runtime` on models as users write them outside the known layouts: a constructor that takes
one untyped `config` object (read as `config.width`, no config class anywhere), and a forward
that needs more inputs than token ids. What initlint builds and what it says must be usable."""

from __future__ import annotations

import json
import textwrap

import pytest

pytest.importorskip("torch")

from initlint.cli import main  # noqa: E402

CONFIG_OBJECT_MODEL = textwrap.dedent("""
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.norm = nn.LayerNorm(cfg.width)
            self.mix = nn.Linear(cfg.width, cfg.width)

        def forward(self, x):
            return x + self.mix(self.norm(x))


    class Net(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.emb = nn.Embedding(config.vocab_size, config.width)
            self.blocks = nn.ModuleList([Block(config) for _ in range(config.depth)])
            self.dropout = nn.Dropout(getattr(config, "dropout", 0.0))

        def forward(self, ids):
            x = self.emb(ids)
            for block in self.blocks:
                x = block(x)
            return self.dropout(x)
""")

TWO_INPUT_MODEL = textwrap.dedent("""
    import torch.nn as nn


    class Tagger(nn.Module):
        def __init__(self, vocab_size=32, width=8):
            super().__init__()
            self.tokens = nn.Embedding(vocab_size, width)
            self.segments = nn.Embedding(2, width)
            self.mix = nn.Linear(width, width)

        def forward(self, ids, segment_ids):
            x = self.tokens(ids) + self.segments(segment_ids)
            return x + self.mix(x)
""")


def runtime_error(tmp_path, monkeypatch, capsys, source: str, *argv: str) -> str | None:
    """The INI110 message for `model.py`, or None when the model was built."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(source)
    main(["check", "model.py", "--runtime", "--isolated", "--format", "json", *argv])
    findings = json.loads(capsys.readouterr().out)
    errors = [f["details"]["error"] for f in findings if f["code"] == "INI110"]
    return errors[0] if errors else None


def test_an_untyped_config_object_is_built_from_the_config_values(tmp_path, monkeypatch, capsys):
    error = runtime_error(
        tmp_path, monkeypatch, capsys, CONFIG_OBJECT_MODEL, "--config", "vocab_size=16,width=8,depth=2"
    )
    assert error is None


def test_without_values_it_names_the_fields_the_file_reads(tmp_path, monkeypatch, capsys):
    error = runtime_error(tmp_path, monkeypatch, capsys, CONFIG_OBJECT_MODEL)
    assert error is not None and "--config config=" not in error
    assert "Net(config) takes a config object" in error
    assert "depth=...,vocab_size=...,width=..." in error


def test_a_missing_field_is_named(tmp_path, monkeypatch, capsys):
    error = runtime_error(tmp_path, monkeypatch, capsys, CONFIG_OBJECT_MODEL, "--config", "vocab_size=16,depth=2")
    assert error is not None and "Net reads config.width, which --config does not set" in error


def test_a_forward_that_needs_more_inputs_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(TWO_INPUT_MODEL)
    main(["check", "model.py", "--runtime", "--isolated"])
    out = capsys.readouterr().out
    assert "segment_ids" in out and "--input-shape" not in out
    assert "--factory" in out
    # the forward never ran: no parameter is known to be unused
    assert not [line for line in out.splitlines() if line.strip().startswith("unused ")]


INJECTED_LAYER_MODEL = textwrap.dedent("""
    import copy

    import torch.nn as nn


    class Layer(nn.Module):
        def __init__(self, width: int):
            super().__init__()
            self.out = nn.Linear(width, width)

        def forward(self, x):
            return x + self.out(x)


    class Stack(nn.Module):
        def __init__(self, layer: Layer, depth: int):
            super().__init__()
            self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(depth)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x
""")


def test_a_module_argument_asks_for_a_factory_not_a_config_value(tmp_path, monkeypatch, capsys):
    error = runtime_error(tmp_path, monkeypatch, capsys, INJECTED_LAYER_MODEL, "--model", "Stack")
    assert error is not None and "layer=..." not in error
    assert "Stack(layer, depth) takes a Layer as layer, which --config cannot give" in error
    assert "--factory FILE.py:CALLABLE" in error
