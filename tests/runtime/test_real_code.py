"""`--runtime` on code as people have it: the shipped examples, transformers' own modeling files,
a minGPT-style package; usage errors, `# noqa`, and positions in every output format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

from initlint.cli import main  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MINGPT = os.path.join(HERE, "mingpt_project", "mingpt", "model.py")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", "--isolated", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def initlint(*argv: str, cwd: str = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--isolated", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


# -- the examples ------------------------------------------------------------------------------


def test_examples_agree_with_the_static_check_and_all_build():
    static = json.loads(initlint("examples", "--format", "json").stdout)
    both = json.loads(initlint("examples", "--format", "json", "--runtime", "-j", "2").stdout)
    assert not [f for f in both if f["code"] == "INI110"], both
    # Every static finding is still there, once, and now carries the measurement.
    key = lambda f: (f["path"], f["line"], f["column"], f["code"])  # noqa: E731
    merged = {key(f): f for f in both}
    for finding in static:
        assert any(e["message"].startswith("measured: ") for e in merged[key(finding)]["evidence"]), finding
    # Files the static check calls clean stay clean (parallel blocks, HF-style post_init, ...).
    assert {f["path"] for f in both} == {f["path"] for f in static}


# -- Hugging Face modeling files, in their package ---------------------------------------------

TINY_DECODER = (
    "num_hidden_layers=2,hidden_size=32,intermediate_size=64,num_attention_heads=2,num_key_value_heads=1,vocab_size=128"
)
HF_MODELS = {
    "gpt2": ("n_layer=2,n_embd=32,n_head=2,vocab_size=128,n_positions=32", "GPT2LMHeadModel", "clean"),
    "llama": (TINY_DECODER, "LlamaForCausalLM", "unscaled"),
    "mistral": (TINY_DECODER, "MistralForCausalLM", "unscaled"),
    "qwen2": (TINY_DECODER, "Qwen2ForCausalLM", "unscaled"),
    "gemma": (TINY_DECODER + ",head_dim=16", "GemmaForCausalLM", "unscaled"),
    "olmo": (TINY_DECODER, "OlmoForCausalLM", "unscaled"),
    # Each branch's output is normalised before the residual add: the writers' std never reaches
    # the stream, so their missing depth factor is no bug.
    "olmo2": (TINY_DECODER, "Olmo2ForCausalLM", "clean"),
    "bert": (
        "num_hidden_layers=2,hidden_size=32,intermediate_size=64,num_attention_heads=2,vocab_size=128",
        "BertForPreTraining",
        "clean",
    ),
}


@pytest.mark.parametrize("name", sorted(HF_MODELS))
def test_transformers_modeling_files_run_with_one_flag(name, capsys, tmp_path, monkeypatch):
    transformers = pytest.importorskip("transformers")
    path = os.path.join(os.path.dirname(transformers.__file__), "models", name, f"modeling_{name}.py")
    config, model, verdict = HF_MODELS[name]
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, path, "--runtime", "--config", config)
    if "INI110" in out:  # the whole error, not the headline, makes a failure readable
        _, again, _ = run_cli(capsys, path, "--runtime", "--config", config, "--format", "json", "--select", "INI110")
        pytest.fail(json.dumps([f["details"] for f in json.loads(again)]))
    assert ": runtime (" in out and f") {model}: policy auto -> gpt2" in out, out + err
    if verdict == "clean":
        assert code == 0, out
        return
    # transformers does not scale its writers by depth: o_proj and down_proj are 2 sqrt(2) ...
    code, out, _ = run_cli(capsys, path, "--runtime", "--config", config, "--format", "json")
    measured = [e for f in json.loads(out) for e in f["evidence"] if e["message"].startswith("measured: ")]
    assert any("no depth scaling (the 4 residual layers need 1/sqrt(4))" in e["message"] for e in measured), out
    # ... and every finding is on the modeling file, at the creation of a writer.
    for finding in json.loads(out):
        assert finding["path"] == path
        with open(path) as handle:
            line = handle.read().splitlines()[finding["line"] - 1]
        assert line.strip().startswith(("self.o_proj =", "self.down_proj =")), line


# -- a minGPT-style package --------------------------------------------------------------------


def test_mingpt_package_runs_with_one_flag_and_says_which(capsys):
    code, out, _ = run_cli(capsys, MINGPT, "--runtime", "--config", "model_type=gpt-nano,vocab_size=64,block_size=16")
    assert code == 0 and ") GPT: policy auto -> gpt2, 41 parameters, 0 findings" in out, out
    code, out, _ = run_cli(capsys, MINGPT, "--runtime", "--format", "json")
    [finding] = json.loads(out)
    assert finding["code"] == "INI110" and "GPT.get_default_config() leaves" in finding["message"]
    assert finding["help"] == "pass --model-config block_size=...,n_embd=...,n_head=...,n_layer=...,vocab_size=..."


# -- usage errors ------------------------------------------------------------------------------

NET = textwrap.dedent("""
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(16, 8)

        def forward(self, ids):
            return self.emb(ids)

    def build_model():
        return Net()
""")


@pytest.mark.parametrize(
    "argv, words",
    [
        (
            ["--model", "Nope"],
            "--model Nope: no class or factory of that name in the checked files (model classes found: Net)",
        ),
        (["--factory", "nosuch.py:build"], "no such file nosuch.py (Python files in .: net.py)"),
        (["--factory", "net.py:build"], "net.py defines no build (it defines: Net, build_model)"),
        (["--factory", "nosuch.module:build"], "no module nosuch.module in the current folder or on sys.path"),
    ],
)
def test_names_that_do_not_exist_are_usage_errors(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(NET)
    code, out, err = run_cli(capsys, "net.py", "--runtime", *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert words in err and "Traceback" not in err


# -- noqa, merging, positions ------------------------------------------------------------------

GPT = os.path.join(HERE, "gpt_zoo.py")


@pytest.fixture
def unscaled(tmp_path, monkeypatch):
    """The zoo's GPT with its no-depth bug as the default, in an empty folder."""
    monkeypatch.chdir(tmp_path)
    source = open(GPT).read().replace('init: str = "gpt2"', 'init: str = "no-depth"')
    (tmp_path / "gpt.py").write_text(source)
    return tmp_path / "gpt.py"


def test_noqa_hides_runtime_findings_and_is_not_called_unused(unscaled, capsys):
    select = ("--select", "INI1,INI904")
    code, out, _ = run_cli(capsys, "gpt.py", "--runtime", "--model", "GPT", "--format", "json", *select)
    [finding] = json.loads(out)
    assert finding["code"] == "INI101"
    lines = unscaled.read_text().splitlines()
    lines[finding["line"] - 1] += "  # noqa: INI101"
    unscaled.write_text("\n".join(lines) + "\n")
    code, out, _ = run_cli(capsys, "gpt.py", "--runtime", "--model", "GPT", "--format", "json", *select)
    assert json.loads(out) == [] and code == 0
    # The static pass alone cannot use the code: it calls it unused, as it always did.
    code, out, _ = run_cli(capsys, "gpt.py", "--format", "json", *select)
    assert [f["code"] for f in json.loads(out)] == ["INI904"]


def test_static_and_runtime_findings_on_one_writer_are_one_finding(capsys):
    code, out, _ = run_cli(
        capsys, os.path.join(ROOT, "examples", "gpt2_sqrt_n_layer.py"), "--runtime", "--format", "json"
    )
    [finding] = json.loads(out)
    assert finding["code"] == "INI002" and finding["details"]["runtime"]["code"] == "INI101"
    [measured] = [e for e in finding["evidence"] if e["message"].startswith("measured: ")]
    assert "ratio 1.41" in measured["message"] and "n_layer instead of 2*n_layer" in measured["message"]
    assert (measured["line"], measured["column"]) == (finding["line"], finding["column"])


def test_positions_in_every_format(unscaled, capsys, tmp_path):
    # A factory in another folder: the finding stays on the modeling file.
    (tmp_path / "factories").mkdir()
    (tmp_path / "factories" / "make.py").write_text(
        "from gpt import GPT, GPTConfig\n\n\ndef tiny():\n    return GPT(GPTConfig(n_layer=2))\n"
    )
    argv = ("gpt.py", "--runtime", "--factory", "factories/make.py:tiny", "--select", "INI101")
    lines = unscaled.read_text().splitlines()
    code, out, _ = run_cli(capsys, *argv, "--format", "json")
    [finding] = json.loads(out)
    line, column = finding["line"], finding["column"]
    assert finding["path"] == "gpt.py" and lines[line - 1].strip().startswith("self.c_proj = nn.Linear(")
    assert column == lines[line - 1].index("self") + 1
    code, out, _ = run_cli(capsys, *argv, "-q")
    assert out.startswith(f"gpt.py:{line}:{column}: INI101 ")
    code, out, _ = run_cli(capsys, *argv, "--format", "github")
    assert f"file=gpt.py,line={line},col={column}" in out
    code, out, _ = run_cli(capsys, *argv, "--format", "sarif")
    [result] = json.loads(out)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("gpt.py")
    assert (location["region"]["startLine"], location["region"]["startColumn"]) == (line, column)
