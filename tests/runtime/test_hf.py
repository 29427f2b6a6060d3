"""Hugging Face models built from a config, through the API and through `--factory`.

transformers 5.x skips weight init on the meta device; the pipeline runs it explicitly. HF
GPT-2 scales its Conv1D `c_proj` by 1/sqrt(2 * n_layer); HF Llama does not scale at all, so it
is clean under the `none` policy and reported under the default.
"""

from __future__ import annotations

import json
import math
import os

import pytest

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from initlint.cli import main  # noqa: E402
from initlint.runtime import verify  # noqa: E402

FACTORIES = """
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM


def tiny_gpt2():
    return GPT2LMHeadModel(GPT2Config(n_layer=3, n_embd=32, n_head=4, vocab_size=128, n_positions=32,
                                      bos_token_id=0, eos_token_id=0))


def tiny_llama():
    return LlamaForCausalLM(LlamaConfig(num_hidden_layers=3, hidden_size=32, intermediate_size=64,
                                        num_attention_heads=4, num_key_value_heads=2, vocab_size=128,
                                        max_position_embeddings=64, bos_token_id=0, eos_token_id=0))
"""


@pytest.fixture(scope="module")
def factories(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hf")
    path = folder / "hf_models.py"
    path.write_text(FACTORIES)
    namespace: dict = {}
    exec(compile(FACTORIES, str(path), "exec"), namespace)
    return path, namespace


def test_tiny_gpt2_is_clean_with_conv1d_writers_found(factories):
    _, namespace = factories
    report = verify(namespace["tiny_gpt2"])
    assert report.ok, report
    rows = {row.name: row for row in report.models[0].rows}
    assert rows["transformer.h.0.attn.c_proj.weight"].role == "writer"
    assert rows["transformer.h.0.mlp.c_proj.weight"].expected_std == pytest.approx(0.02 / math.sqrt(6))
    assert rows["transformer.h.0.mlp.c_fc.weight"].role == "linear"
    assert any("initialize_weights()" in note for note in report.models[0].notes)


def test_tiny_llama_needs_the_none_policy(factories):
    _, namespace = factories
    assert verify(namespace["tiny_llama"], policy="none", materialize=False).ok
    report = verify(namespace["tiny_llama"], materialize=False)
    assert report.codes() == ["INI101"]
    finding = report.findings[0]
    assert sorted({name.split(".", 3)[3] for name in finding.params}) == [
        "mlp.down_proj.weight",
        "self_attn.o_proj.weight",
    ]
    assert "ratio 2.45" in finding.message and "no depth scaling" in finding.message


def test_llama_measured_with_hand_written_rmsnorm(factories):
    _, namespace = factories
    report = verify(namespace["tiny_llama"], policy="none")
    assert report.ok, report
    roles = {row.name: row.role for row in report.models[0].rows}
    assert roles["model.layers.0.input_layernorm.weight"] == "norm-gain"
    assert roles["lm_head.weight"] == "head"


def test_factory_through_the_cli(factories, capsys, monkeypatch):
    path, _ = factories
    monkeypatch.chdir(path.parent)
    code = main(["check", str(path), "--runtime", "--isolated", "--format", "json", "--factory", f"{path}:tiny_llama"])
    findings = [f for f in json.loads(capsys.readouterr().out) if f["code"].startswith("INI1")]
    assert code == 1 and [f["code"] for f in findings] == ["INI101"]
    # Reported in the checked file, at the line that builds the model (transformers' modeling file
    # was not checked); the evidence points at the writer's line there and names transformers'
    # `_init_weights` line (not its `normal_` wrapper).
    finding = findings[0]
    assert finding["path"] == str(path)
    assert path.read_text().splitlines()[finding["line"] - 1].strip().startswith("return LlamaForCausalLM(")
    created, init = finding["evidence"][1], finding["evidence"][2]
    assert created["path"].endswith(os.path.join("models", "llama", "modeling_llama.py"))
    assert "was not checked" in created["message"]
    with open(created["path"]) as handle:
        line = handle.read().splitlines()[created["line"] - 1]
    assert line.strip().startswith("self.o_proj = nn.Linear(") and created["column"] == line.index("self") + 1
    assert "transformers" in init["path"] and "initialization.py" not in init["path"]


CUSTOM = open(__file__.replace("test_hf.py", "hf_custom_model.py")).read()


def test_a_custom_pretrained_model_is_built_from_its_config_class(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny_hf.py").write_text(CUSTOM)
    main(
        [
            "check",
            "tiny_hf.py",
            "--runtime",
            "--isolated",
            "--format",
            "json",
            "--select",
            "INI1",
            "--config",
            "n_layer=4",
        ]
    )
    [finding] = json.loads(capsys.readouterr().out)
    assert finding["code"] == "INI101" and "0.02/sqrt(4)" in finding["evidence"][0]["message"]
    assert CUSTOM.splitlines()[finding["line"] - 1].strip() == "self.proj = nn.Linear(config.hidden, config.hidden)"
    assert "nn.init.normal_(module.weight" in CUSTOM.splitlines()[finding["evidence"][1]["line"] - 1]
    main(["check", "tiny_hf.py", "--runtime", "--isolated", "--format", "json", "--select", "INI1", "--policy", "none"])
    assert json.loads(capsys.readouterr().out) == []
