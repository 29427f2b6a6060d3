"""`initlint check --runtime` end to end: options, config, findings at source lines, errors."""

from __future__ import annotations

import json
import os
import shutil
import textwrap

import pytest

pytest.importorskip("torch")

from initlint.cli import main  # noqa: E402

ZOO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpt_zoo.py")


@pytest.fixture
def zoo(tmp_path, monkeypatch):
    """A copy of the zoo in an empty project folder (no pyproject.toml above it)."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(ZOO, tmp_path / "gpt_zoo.py")
    return "gpt_zoo.py"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def runtime_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if ": INI1" in line]


def test_text_output_has_the_table_and_the_finding_at_the_writer_creation(zoo, capsys):
    code, out, err = run_cli(capsys, zoo, "--runtime", "--model", "GPT", "--config", "init=n-layer", "--isolated")
    assert code == 1, err
    assert "residual writer  transformer.h.*.attn.c_proj.weight" in out
    [line] = runtime_lines(out)
    path, row, column = line.split(":")[:3]
    source = open(zoo).read().splitlines()
    # Where the static rules report a writer: the statement that creates its layer.
    assert path == zoo and source[int(row) - 1].strip() == "self.c_proj = nn.Linear(config.n_embd, config.n_embd)"
    assert int(column) == source[int(row) - 1].index("self") + 1
    assert (
        "INI101 residual writer transformer.h.*.attn.c_proj (+1 more): std 0.01, gpt2 expects 0.00707 (ratio 1.41)"
        in line
    )
    code, out, _ = run_cli(capsys, zoo, "--runtime", "--config", "init=n-layer", "--isolated", "--format", "json")
    [finding] = [f for f in json.loads(out) if f["code"] == "INI101"]
    measured, init = finding["evidence"]
    assert "ratio 1.41" in measured["message"] and "n_layer instead of 2*n_layer" in measured["message"]
    assert "torch.nn.init.normal_(param, mean=0.0, std=std)" in source[init["line"] - 1]
    callers = [source[n - 1] for n in finding["details"]["called_from_lines"]]
    assert any("0.02 / math.sqrt(depth)" in text for text in callers)


def test_json_output_stays_parseable_and_selection_applies(zoo, capsys):
    code, out, _ = run_cli(
        capsys, zoo, "--runtime", "--model-config", "init=no-depth", "--format", "json", "--isolated"
    )
    findings = [f for f in json.loads(out) if f["code"].startswith("INI1")]
    assert [f["code"] for f in findings] == ["INI101"] and code == 1
    assert findings[0]["details"]["model"] == "GPT" and len(findings[0]["details"]["params"]) == 8
    code, out, _ = run_cli(
        capsys, zoo, "--runtime", "--config", "init=no-depth", "--format", "json", "--isolated", "--ignore", "INI101"
    )
    assert not [f for f in json.loads(out) if f["code"].startswith("INI1")]


def test_correct_model_is_clean(zoo, capsys):
    code, out, _ = run_cli(capsys, zoo, "--runtime", "--isolated", "--format", "json")
    assert not [f for f in json.loads(out) if f["code"].startswith("INI1")]


def test_policy_from_pyproject_and_config_flag_still_reads_pyproject(zoo, tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.initlint.runtime]\npolicy = "none"\nconfig = "init=no-depth"\n')
    code, out, _ = run_cli(capsys, zoo, "--runtime", "--format", "json")
    assert not [f for f in json.loads(out) if f["code"].startswith("INI1")]
    other = tmp_path / "other.toml"
    other.write_text('[tool.initlint.runtime]\npolicy = "gpt2"\n')
    code, out, _ = run_cli(
        capsys, zoo, "--runtime", "--config", str(other), "--config", "init=no-depth", "--format", "json"
    )
    assert [f["code"] for f in json.loads(out) if f["code"].startswith("INI1")] == ["INI101"]


def test_factory(zoo, tmp_path, capsys):
    (tmp_path / "build.py").write_text(
        "from gpt_zoo import make\n\ndef tiny():\n    return make('n-layer', n_layer=2)\n"
    )
    code, out, _ = run_cli(capsys, zoo, "--runtime", "--factory", "build.py:tiny", "--format", "json", "--isolated")
    [finding] = [f for f in json.loads(out) if f["code"].startswith("INI1")]
    assert finding["code"] == "INI101" and finding["path"] == zoo  # the modeling file, not build.py
    assert "0.02/sqrt(4)" in finding["evidence"][0]["message"] and finding["details"]["model"] == "GPT"


def test_cannot_build_says_what_to_pass(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(
        textwrap.dedent("""
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, vocab_size, width):
                super().__init__()
                self.emb = nn.Embedding(vocab_size, width)

            def forward(self, ids):
                return self.emb(ids)
    """)
    )
    code, out, _ = run_cli(capsys, "net.py", "--runtime", "--isolated", "-q")
    [line] = runtime_lines(out)
    # At the class that could not be built, not at the top of the file.
    assert line.startswith("net.py:4:1: INI110 runtime check not run: tried Net: cannot build Net:")
    code, out, _ = run_cli(capsys, "net.py", "--runtime", "--isolated", "--format", "json")
    [finding] = [f for f in json.loads(out) if f["code"] == "INI110"]
    assert finding["details"]["error"] == (
        "tried Net: cannot build Net: Net(vocab_size, width) needs values for "
        "vocab_size, width; pass --config vocab_size=...,width=... or --factory "
        "FILE.py:CALLABLE"
    )
    code, out, _ = run_cli(
        capsys, "net.py", "--runtime", "--isolated", "-q", "--config", "vocab_size=16,width=4,depth=2"
    )
    assert "Net() takes no argument depth" in out
    code, out, _ = run_cli(capsys, "net.py", "--runtime", "--isolated", "--config", "vocab_size=16,width=4")
    # Built; nn.Embedding's own N(0, 1) in a model with no init of its own is no finding.
    assert "INI110" not in out and code == 0 and ") Net: policy auto -> gpt2" in out, out


def test_a_model_whose_construction_raises_is_reported_at_its_class(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pair.py").write_text(
        textwrap.dedent("""
        import torch.nn as nn

        class Good(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(4, 4)

            def forward(self, x):
                return self.proj(x)


        def build_model():
            raise RuntimeError("no weights here")
    """)
    )
    code, out, _ = run_cli(capsys, "pair.py", "--runtime", "--isolated", "--format", "json", "--select", "INI110")
    [finding] = json.loads(out)
    assert (
        finding["line"] == 13 and finding["column"] == 1 and "build_model: the model code raised" in finding["message"]
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--policy", "sqrt"], "unknown runtime policy 'sqrt'"),
        (["--input-shape", "a,b"], "--input-shape 'a,b': expected whole numbers"),
        (["--timeout", "0"], "--timeout must be positive"),
    ],
)
def test_bad_options_are_one_line_usage_errors(zoo, capsys, argv, message):
    code, out, err = run_cli(capsys, zoo, "--runtime", "--isolated", *argv)
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_unknown_runtime_config_key(zoo, tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.initlint.runtime]\npolicies = 'gpt2'\n")
    code, _, err = run_cli(capsys, zoo, "--runtime")
    assert code == 2 and "[tool.initlint.runtime]: unknown key 'policies'" in err


def test_materialize_runs_the_measurements_and_plot_never_costs_findings(zoo, tmp_path, capsys):
    target = tmp_path / "depth.png"
    code, out, err = run_cli(
        capsys,
        zoo,
        "--runtime",
        "--config",
        "init=meta-lost",
        "--materialize",
        "--isolated",
        "--format",
        "json",
        "--plot",
        str(target),
    )
    assert [f["code"] for f in json.loads(out) if f["code"].startswith("INI1")] == ["INI105"]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "--plot needs matplotlib" in err and not target.exists()
    else:
        assert target.stat().st_size > 0


def test_a_helper_root_that_needs_arguments_does_not_hide_the_model(zoo, capsys):
    with open(zoo, "a") as handle:
        handle.write(
            "\n\nclass Adapter(nn.Module):\n    def __init__(self, dim):\n        super().__init__()\n"
            "        self.proj = nn.Linear(dim, dim)\n"
        )
    code, out, _ = run_cli(capsys, zoo, "--runtime", "--isolated")
    assert "INI110" not in out
    assert "note: not verified: cannot build Adapter: Adapter(dim) needs values for dim" in out
    assert "GPT: policy auto -> gpt2" in out


def test_findings_from_init_helpers_in_other_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inits.py").write_text(
        "import torch\n\ndef init_all(model):\n    for p in model.parameters():\n"
        "        if p.dim() > 1:\n            torch.nn.init.normal_(p, std=0.02)\n"
    )
    (tmp_path / "net.py").write_text(
        textwrap.dedent("""
        import torch.nn as nn
        from inits import init_all

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln = nn.LayerNorm(32)
                self.proj = nn.Linear(32, 32)

            def forward(self, x):
                return x + self.proj(self.ln(x))

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(64, 32)
                self.blocks = nn.ModuleList([Block() for _ in range(4)])
                self.head = nn.Linear(32, 64)
                init_all(self)

            def forward(self, ids):
                x = self.emb(ids)
                for block in self.blocks:
                    x = block(x)
                return self.head(x)
    """)
    )
    code, out, _ = run_cli(capsys, "net.py", "--runtime", "--isolated", "--format", "json", "--select", "INI101")
    [finding] = json.loads(out)
    # Reported at the writer's creation; the init op is evidence: checked alone, the model
    # file's call of the helper; checked together, the helper's own line.
    lines = open("net.py").read().splitlines()
    assert (finding["path"], lines[finding["line"] - 1].strip()) == ("net.py", "self.proj = nn.Linear(32, 32)")
    assert lines[finding["evidence"][1]["line"] - 1].strip() == "init_all(self)"
    assert finding["details"]["init_at"].endswith("inits.py:6")
    code, out, _ = run_cli(
        capsys, "net.py", "inits.py", "--runtime", "--isolated", "--format", "json", "--select", "INI101"
    )
    [finding] = json.loads(out)
    assert finding["path"] == "net.py" and (finding["evidence"][1]["path"], finding["evidence"][1]["line"]) == (
        "inits.py",
        6,
    )


def test_static_and_runtime_writer_maps_are_compared():
    from initlint.runtime.cli import writer_agreement

    rows = [
        {"name": f"transformer.h.{i}.{part}.c_proj.weight", "role": "writer"}
        for i in range(2)
        for part in ("attn", "mlp")
    ]
    assert writer_agreement(ZOO, {"model": "GPT", "rows": rows}) == ""
    rows = [row for row in rows if ".mlp." not in row["name"]] + [
        {"name": "transformer.h.0.mlp.c_fc.weight", "role": "writer"}
    ]
    assert writer_agreement(ZOO, {"model": "GPT", "rows": rows}) == (
        "residual writers differ (static analysis only: transformer.h.*.mlp.c_proj; "
        "forward pass only: transformer.h.*.mlp.c_fc); the runtime verdicts follow the forward pass"
    )
