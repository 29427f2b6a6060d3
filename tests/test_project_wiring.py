"""The analysis across a project's files, through the real engine, CLI and flake8.

Projects are written here (or are the whole-project idioms): a block class, an init helper and
a training script each in their own file. What is checked is what the user reads: the finding's
file, line and headline, and the evidence naming the sibling file each piece came from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst
import pytest

from initlint.config import ConfigError, Settings, settings_from_table
from initlint.engine import lint_file, lint_files, lint_source
from initlint.explain import explain_files

IDIOM = Path(__file__).resolve().parent / "idioms" / "whole_project"
SETTINGS = Settings(select=("INI0",))


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("INITLINT_CACHE_DIR", "")


BLOCKS = """
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.proj(F.scaled_dot_product_attention(q, k, v))


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, 4 * dim)
        self.proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))
"""

HELPERS = """
import math

import torch.nn as nn


def scaled_normal_(tensor, n_layer):
    nn.init.normal_(tensor, std=0.02 / math.sqrt({depth}))
"""

MODEL = """
import torch.nn as nn

from .blocks import Attention, Block, MLP
from .helpers import scaled_normal_


class GPT(nn.Module):
    def __init__(self, dim=256, n_layer=12):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(n_layer)])
        self.head = nn.Linear(dim, 1000, bias=False)

    def init_weights(self, n_layer=12):
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
        for module in self.modules():
            if isinstance(module, (Attention, MLP)):
                scaled_normal_(module.proj.weight, n_layer)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)
"""

TRAIN = """
from net.model import GPT

DEPTH = 24


def main():
    model = GPT(dim=512, n_layer=DEPTH)
    model.init_weights(n_layer=DEPTH)
"""


def write_project(root: Path, depth: str = "2 * n_layer", train: str = TRAIN, blocks: str = BLOCKS) -> Path:
    files = {
        "pyproject.toml": "[project]\nname = 'net'\n",
        "net/__init__.py": "",
        "net/blocks.py": blocks,
        "net/helpers.py": HELPERS.format(depth=depth),
        "net/model.py": MODEL,
        "train.py": train,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root / "net" / "model.py"


def rows(findings) -> list[tuple[str, int, str]]:
    return [(Path(f.path).name, f.line, f.code) for f in findings if f.code.startswith("INI")]


# ------------------------------------------------------------------ one file of a project
def test_checking_one_file_follows_its_siblings_and_reports_in_it(monkeypatch):
    # The writer is built in blocks.py: the finding is that file's, wherever the init code lies;
    # checked alone, blocks.py is analysed with the model that stacks its blocks (model.py).
    monkeypatch.chdir(IDIOM / "bad")
    findings = lint_file("src/tinylm/blocks.py", SETTINGS)
    assert rows(findings) == [("blocks.py", 21, "INI001")]
    finding = findings[0]
    assert "`h.*.mlp.c_proj`" in finding.message and "1/sqrt(2 * n_layer)" in finding.message
    where = [(step.path, step.line) for step in finding.evidence]
    assert ("src/tinylm/model.py", 12) in where  # the stack that gives N
    assert ("src/tinylm/init_utils.py", 10) in where  # the helper's normal_ decides its std
    assert (None, 37) in where  # the residual add in Block.forward, in the checked file
    init = next(step.message for step in finding.evidence if step.path == "src/tinylm/init_utils.py")
    assert "train.py:13 `model.apply(partial(model._init_weights, n_layer=N_LAYER))`" in init


def test_sibling_files_alone_report_nothing(monkeypatch):
    monkeypatch.chdir(IDIOM / "bad")
    for name in ("src/tinylm/model.py", "src/tinylm/init_utils.py", "train.py"):
        assert rows(lint_file(name, SETTINGS)) == []


def test_a_correct_project_stays_silent_file_by_file(monkeypatch):
    monkeypatch.chdir(IDIOM / "good")
    for path in sorted(Path(".").rglob("*.py")):
        assert rows(lint_file(str(path), SETTINGS)) == [], path


def test_project_analysis_can_be_turned_off(monkeypatch):
    monkeypatch.chdir(IDIOM / "bad")
    settings = Settings(select=("INI0",), project_analysis=False)
    assert rows(lint_file("src/tinylm/model.py", settings)) == []


def test_stdin_has_no_project():
    source = (IDIOM / "bad" / "src" / "tinylm" / "model.py").read_text(encoding="utf-8")
    assert rows(lint_source(source, "<stdin>", SETTINGS)) == []


def test_jobs_give_the_same_findings(monkeypatch):
    monkeypatch.chdir(IDIOM / "bad")
    files = sorted(str(path) for path in Path(".").rglob("*.py"))
    one = lint_files(files, SETTINGS, jobs=1).findings
    two = lint_files(files, SETTINGS, jobs=2).findings
    assert rows(one) == rows(two) == [("blocks.py", 21, "INI001")]
    assert [f.evidence for f in one] == [f.evidence for f in two]


def test_a_writer_nothing_initialises_is_reported_where_it_is_built(monkeypatch):
    # Net (net.py) stacks Layer (block.py), built from the sublayers of layers.py; no init code
    # anywhere: the writers' construction decides, so layers.py reports them, checked alone too
    # (with the model that stacks its blocks), and the files that only reach them stay silent.
    monkeypatch.chdir(IDIOM.parent / "blocks_stacked_elsewhere" / "bad")
    expected = [("layers.py", 10, "INI001"), ("layers.py", 22, "INI001")]
    for name in ("tiny/net.py", "tiny/block.py"):
        assert rows(lint_file(name, SETTINGS)) == []
    found = lint_file("tiny/layers.py", SETTINGS)
    assert rows(found) == expected
    assert ("tiny/net.py", 7) in [(step.path, step.line) for step in found[0].evidence]  # the model assumed
    assert "Net (assumed: tiny/net.py:7 stacks this file's blocks)" in explain_files(["tiny/layers.py"])
    files = sorted(str(path) for path in Path(".").rglob("*.py"))
    assert rows(lint_files(files, SETTINGS, jobs=1).findings) == expected


def test_a_model_that_may_not_build_the_layer_has_no_say(monkeypatch):
    # PlainNet always stacks the mixer unscaled; ChoiceNet builds it only for a kind it is not
    # given, so its scaled init cannot clear the mixer: layers.py reports it.
    pattern = IDIOM.parent / "foreign_model_may_not_build_layer"
    monkeypatch.chdir(pattern / "bad")
    assert rows(lint_file("pkg/layers.py", SETTINGS)) == [("layers.py", 11, "INI001")]
    monkeypatch.chdir(pattern / "good")
    assert rows(lint_file("pkg/layers.py", SETTINGS)) == []


def test_an_init_loop_of_the_builder_is_the_init_of_uninitialised_layers(monkeypatch, tmp_path):
    # Decoder (model.py) builds its linears with skip_init; builder.py's build_model draws every
    # parameter of the model build_base_model returns: that loop is its init, named in the evidence.
    # Each variant is its own project (a copy with a pyproject.toml): in place, the project would
    # be this repository, and the search for `.parameters()` loops would read all of it.
    pattern = IDIOM.parent / "init_loop_in_builder"
    for variant in ("bad", "good"):
        shutil.copytree(pattern / variant, tmp_path / variant)
        (tmp_path / variant / "pyproject.toml").write_text('[project]\nname = "nmt"\n')
    monkeypatch.chdir(tmp_path / "bad")
    found = lint_file("nmt/model.py", SETTINGS)
    assert rows(found) == [("model.py", 15, "INI001")]
    assert "uninitialised" not in found[0].message
    routes = [step.message for step in found[0].evidence]
    assert any("builder.py:14 `for ... in model.parameters()`" in route for route in routes)
    monkeypatch.chdir(tmp_path / "good")
    assert rows(lint_file("nmt/model.py", SETTINGS)) == []


# -------------------------------------------------------------- written projects
def test_entry_point_called_from_a_script_with_the_depth(tmp_path):
    model = write_project(tmp_path / "good")
    assert rows(lint_file(model, SETTINGS)) == []
    model = write_project(tmp_path / "bad", depth="n_layer")
    found = lint_file(model, SETTINGS)
    # The std is computed in helpers.py; reported where model.py calls the helper, without a fix.
    assert rows(found) == [("model.py", 19, "INI002")]
    assert found[0].fix is None
    assert any(step.path and step.path.endswith("helpers.py") and step.line == 7 for step in found[0].evidence)


def test_callers_that_disagree_leave_the_init_undecided(tmp_path):
    train = TRAIN + "\n\ndef finetune():\n    model = GPT(dim=512, n_layer=DEPTH)\n    model.init_weights(n_layer=1)\n"
    model = write_project(tmp_path, depth="n_layer", train=train)
    assert rows(lint_file(model, SETTINGS)) == []


def test_a_caller_of_another_class_is_not_followed(tmp_path):
    train = "from net.model import GPT\n\n\nclass Other:\n    def init_weights(self, n_layer=1):\n        pass\n\n\nOther().init_weights(n_layer=3)\n"
    model = write_project(tmp_path, depth="n_layer", train=train)
    # No caller of GPT's entry point: the single-file fallback (its defaults) decides, not Other's call.
    routes = [step.message for finding in lint_file(model, SETTINGS) for step in finding.evidence]
    assert not any("train.py" in route for route in routes)


def test_a_broken_sibling_never_breaks_the_checked_file(tmp_path):
    model = write_project(tmp_path, blocks=BLOCKS + "\ndef broken(:\n")
    assert rows(lint_file(model, SETTINGS)) == []
    result = lint_files([str(path) for path in sorted(tmp_path.rglob("*.py"))], Settings(select=("INI0", "INI9")))
    assert rows(result.findings) == [("blocks.py", 38, "INI901")]


def test_each_file_is_parsed_once_per_run(tmp_path, monkeypatch):
    write_project(tmp_path, depth="n_layer")
    parsed: list[str] = []
    real = libcst.parse_module

    def counting(source, *args, **kwargs):
        parsed.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", counting)
    files = [str(path) for path in sorted(tmp_path.rglob("*.py"))]
    result = lint_files(files, SETTINGS)
    assert rows(result.findings) == [("model.py", 19, "INI002")]
    assert len(parsed) == len(set(parsed)), "a file was parsed twice"


def test_explain_names_the_file_of_each_piece(tmp_path):
    model = write_project(tmp_path)
    table = explain_files([str(model)])
    line = next(row for row in table.splitlines() if "blocks.*.mlp.proj.weight" in row)
    assert "helpers.py:7 (train.py:8 `model.init_weights(n_layer=DEPTH)`" in line and line.endswith("net/blocks.py:20")
    assert "GPT-2 1/sqrt(2L)" in line


# ------------------------------------------------------------------- front ends
def _cli(cwd: Path, *args: str) -> list[tuple[str, int, int, str]]:
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--isolated", "--select", "INI0", "--format", "json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "INITLINT_CACHE_DIR": ""},
    )
    return sorted((Path(f["path"]).name, f["line"], f["column"], f["code"]) for f in json.loads(result.stdout))


def _flake8(cwd: Path, *args: str) -> list[tuple[str, int, int, str]]:
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "INI0", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "INITLINT_CACHE_DIR": ""},
    )
    found = []
    for line in result.stdout.splitlines():
        path, row, column, rest = line.split(":", 3)
        found.append((Path(path).name, int(row), int(column), rest.split()[0]))
    return sorted(found)


def test_cli_on_the_folder_on_one_file_and_flake8_agree():
    bad = IDIOM / "bad"
    expected = [("blocks.py", 21, 9, "INI001")]
    assert _cli(bad, ".") == expected
    assert _cli(bad, "src/tinylm/blocks.py") == expected  # what pre-commit runs on a changed file
    assert _flake8(bad, "src/tinylm/model.py", "src/tinylm/blocks.py", "train.py") == expected


# ------------------------------------------------------------------- settings
def test_config_keys():
    settings = settings_from_table({"project-analysis": False, "cache-dir": ".cache/initlint"})
    assert settings.project_analysis is False and settings.cache_dir == ".cache/initlint"
    with pytest.raises(ConfigError, match="expected true or false"):
        settings_from_table({"project-analysis": "no"})


LIBRARY_BASE = """
import torch.nn as nn


class PreTrainedModel(nn.Module):
    def __init__(self, config, *inputs, **kwargs):
        super().__init__()
        self.config = config

    def post_init(self):
        self.init_weights()

    def init_weights(self):
        pass  # library machinery: the registry says what it does
"""


CHECKPOINTING_LAYER = """
import torch.nn as nn


class CheckpointingLayer(nn.Module):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
"""


def _library_checkout(root: Path, scaled: bool) -> Path:
    """A checkout of a library the registry describes (a `transformers` package whose own
    `modeling_utils.py` defines `PreTrainedModel`), with a model file inside it."""
    example = (Path(__file__).resolve().parent.parent / "examples" / "hf_style_init_weights.py").read_text()
    model = example.replace(
        "class TinyGPTPreTrainedModel(nn.Module):", "class TinyGPTPreTrainedModel(PreTrainedModel):"
    ).replace(
        "import torch.nn.functional as F\n",
        "import torch.nn.functional as F\n\nfrom ...modeling_utils import PreTrainedModel\n",
    )
    model = model.replace("    def post_init(self) -> None:\n        self.apply(self._init_weights)\n\n", "")
    # The block's base lives in a sibling file and defines `__init_subclass__`, as HF's
    # `GradientCheckpointingLayer` does: a Python protocol method, not an uncalled weight init.
    model = model.replace("class GPTBlock(nn.Module):", "class GPTBlock(CheckpointingLayer):").replace(
        "from ...modeling_utils import PreTrainedModel\n",
        "from ...modeling_layers import CheckpointingLayer\nfrom ...modeling_utils import PreTrainedModel\n",
    )
    if not scaled:
        model = model.replace("        if isinstance(module, (GPTAttention, GPTMLP)):", "        if False:")
    package = root / "transformers"
    (package / "models" / "tiny").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'transformers'\n")
    for folder in (package, package / "models", package / "models" / "tiny"):
        (folder / "__init__.py").write_text("")
    (package / "modeling_utils.py").write_text(LIBRARY_BASE)
    (package / "modeling_layers.py").write_text(CHECKPOINTING_LAYER)
    checked = package / "models" / "tiny" / "modeling_tiny.py"
    checked.write_text(model)
    return checked


@pytest.mark.parametrize("scaled", [True, False])
def test_a_library_class_the_registry_knows_is_not_read_from_the_librarys_own_source(tmp_path, scaled):
    """Inside a transformers checkout, `PreTrainedModel` resolves to the project's own file; the
    registry's meaning (`post_init` applies `_init_weights`) must win over that source, which
    in the real library is thousands of lines the interpreter cannot follow in its budget."""
    checked = _library_checkout(tmp_path, scaled)
    codes = [finding.code for finding in lint_file(checked, SETTINGS)]
    assert codes == ([] if scaled else ["INI001", "INI001"])


PRESET_MODEL = """
import torch.nn as nn


class Layer(nn.Module):
    def __init__(self, dim, layer_norm_first):
        super().__init__()
        self.layer_norm_first = layer_norm_first
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        if self.layer_norm_first:
            return x + self.out(self.fc(self.norm(x)))
        return self.norm(x + self.out(self.fc(x)))


class Model(nn.Module):
    def __init__(self, dim, depth, layer_norm_first: bool):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dim, layer_norm_first) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
"""


def _preset_project(root: Path, large_first: str) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(PRESET_MODEL)
    presets = f"""
from .model import Model


def base_model():
    return Model(512, 12, layer_norm_first=False)


def large_model():
    return Model(1024, 24, layer_norm_first={large_first})


def huge_model():
    return Model(2048, 48, layer_norm_first={large_first})
"""
    (root / "pkg" / "presets.py").write_text(presets)
    return root / "pkg" / "model.py"


def test_a_flag_only_presets_set_is_read_per_preset(tmp_path):
    model = _preset_project(tmp_path, "True")
    found = lint_file(model, SETTINGS)
    assert [(f.line, f.code) for f in found] == [(11, "INI001")]
    assert "(preset `large_model`)" in found[0].message
    step = found[0].evidence[-1]
    assert step.message == (
        "as the preset `large_model` builds it: `layer_norm_first=True` here (and 1 more presets with the same flags)"
    )
    assert (Path(step.path).name, step.line) == ("presets.py", 10)


def test_presets_that_build_post_norm_blocks_report_nothing(tmp_path):
    assert lint_file(_preset_project(tmp_path, "False"), SETTINGS) == []


def test_explain_names_the_preset_a_model_is_built_by(tmp_path):
    table = explain_files([str(_preset_project(tmp_path, "True"))])
    assert "Model (as the preset `large_model` builds it: `layer_norm_first=True`)" in table
