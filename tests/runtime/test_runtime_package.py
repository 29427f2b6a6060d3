"""`initlint check --runtime` on a package folder and on one file of it: which files are built,
where the findings land, and a forward pass that fails."""

from __future__ import annotations

import json
import os
import shutil
import textwrap

import pytest

pytest.importorskip("torch")

from initlint.cli import main  # noqa: E402
from initlint.runtime.building_blocks import building_block_files  # noqa: E402

PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "blocks_project")


@pytest.fixture
def tinylm(tmp_path, monkeypatch):
    """A copy of the three-file package (model, blocks, layers) in an empty folder."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(os.path.join(PROJECT, "tinylm"), tmp_path / "tinylm")
    return "tinylm"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(folder, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text))
    return [str(folder / name) for name in files]


MODULE = "import torch.nn as nn\n\nclass {name}(nn.Module):\n    def forward(self, x):\n        return {body}\n"


def test_a_block_file_is_skipped_when_a_model_of_another_file_builds_its_classes(tmp_path):
    files = write(
        tmp_path,
        {
            "blocks.py": MODULE.format(name="Block", body="x"),
            "model.py": "from blocks import Block\n" + MODULE.format(name="Net", body="Block()(x)"),
            # a script that builds the model is no model: it does not make model.py a block file
            "train.py": "from model import Net\nnet = Net()\n",
        },
    )
    blocks, model, _ = files
    assert building_block_files(files) == {blocks: [model]}


def test_a_block_reached_through_a_package_reexport_is_built_by_its_model(tmp_path):
    block = "import torch.nn as nn\n\nclass Block(nn.Module):\n    def __init__(self):\n"
    block += "        super(Block, self).__init__()\n\n    def forward(self, x):\n        return x\n"
    files = write(
        tmp_path,
        {
            "pkg/__init__.py": "from .blocks import Block\n",
            "pkg/blocks.py": block,
            "pkg/model.py": "from pkg import Block\n" + MODULE.format(name="Model", body="Block()(x)"),
        },
    )
    _, blocks, model = files
    # (`super(Block, self)` names the class in its own body: it is still the file's root.)
    assert building_block_files([blocks, model]) == {blocks: [model]}


def test_extending_a_class_is_not_building_it_and_a_factory_keeps_its_file(tmp_path):
    files = write(
        tmp_path,
        {
            "base.py": MODULE.format(name="Base", body="x"),
            "variant.py": "from base import Base\n\nclass Variant(Base):\n    def forward(self, x):\n        return x\n",
            "parts.py": MODULE.format(name="Part", body="x") + "\ndef build_model():\n    return Part()\n",
            "user.py": "import parts\n" + MODULE.format(name="User", body="parts.Part()(x)"),
        },
    )
    assert building_block_files(files) == {}


def test_nothing_is_skipped_when_every_file_would_be(tmp_path):
    files = write(
        tmp_path,
        {
            "a.py": "import b\n" + MODULE.format(name="A", body="b.B()(x)"),
            "b.py": "import a\n" + MODULE.format(name="B", body="a.A()(x)"),
        },
    )
    assert building_block_files(files) == {}


def test_a_package_folder_builds_its_model_and_names_the_block_files_once(tinylm, capsys):
    code, out, err = run_cli(capsys, tinylm, "--runtime", "--isolated", "--format", "json")
    findings = [f for f in json.loads(out) if f["code"].startswith("INI1")]
    assert [f["code"] for f in findings] == ["INI101"] and code == 1  # no INI110 per block file
    [note] = [line for line in err.splitlines() if "--runtime skipped" in line]
    assert note == (
        "initlint: --runtime skipped 2 files whose modules other checked files build "
        f"({os.path.join('tinylm', 'blocks.py')}, {os.path.join('tinylm', 'layers.py')}); "
        "--model or --factory builds one"
    )
    # The layer's file is checked: the finding is at its creation there.
    assert findings[0]["path"] == os.path.join("tinylm", "layers.py")


def test_a_model_file_checked_alone_reports_at_its_own_construction_of_the_block(tinylm, capsys):
    path = os.path.join(tinylm, "model.py")
    code, out, _ = run_cli(capsys, path, "--runtime", "--isolated", "--format", "json")
    [finding] = [f for f in json.loads(out) if f["code"].startswith("INI1")]
    lines = open(path).read().splitlines()
    statement = "self.stack = nn.ModuleList([blocks.Layer(cfg) for _ in range(cfg.depth)])"
    assert finding["path"] == path and lines[finding["line"] - 1].strip() == statement
    assert finding["column"] == lines[finding["line"] - 1].index("self") + 1
    layer = finding["evidence"][1]
    layers = os.path.join(tinylm, "layers.py")
    assert layer["path"] == layers and f"in {layers}, which was not checked" in layer["message"]
    assert open(layers).read().splitlines()[layer["line"] - 1].strip().startswith("self.out = nn.Linear")
    init = finding["evidence"][2]  # the init op: a line of the checked file, at its code's column
    assert lines[init["line"] - 1].strip() == "nn.init.normal_(module.weight, std=0.02)"
    assert init["column"] == lines[init["line"] - 1].index("nn.init") + 1


def test_a_forward_that_fails_is_an_error_in_every_format(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path,
        {
            "pair.py": """
            import torch.nn as nn


            class Pair(nn.Module):
                def __init__(self, vocab: int = 40, width: int = 8):
                    super().__init__()
                    self.embed = nn.Embedding(vocab, width)
                    self.mix = nn.Linear(width, width)

                def forward(self, ids, other_ids):
                    return self.embed(ids) + self.mix(self.embed(other_ids))
            """
        },
    )
    code, out, _ = run_cli(capsys, "pair.py", "--runtime", "--isolated", "-q")
    assert code == 1
    assert out.splitlines() == [
        "pair.py:5:1: INI110 runtime check incomplete: Pair.forward failed, residual writers not verified"
    ]
    code, out, _ = run_cli(capsys, "pair.py", "--runtime", "--isolated", "--format", "sarif")
    [result] = json.loads(out)["runs"][0]["results"]
    assert code == 1 and result["ruleId"] == "INI110" and result["level"] == "error"
    assert "Pair.forward needs other_ids" in json.dumps(result)
