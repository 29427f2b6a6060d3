"""Layers left at PyTorch's default init: no finding per layer; one when the model's own plan
missed them; writers judged as before (`initlint/runtime/default_init.py`)."""

from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")

from initlint.cli import main  # noqa: E402
from initlint.runtime import verify  # noqa: E402
from initlint.runtime.default_init import TORCH_DEFAULT  # noqa: E402

import default_init_zoo as zoo  # noqa: E402

ZOO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "default_init_zoo.py")


def trace(model_class, **options):
    return verify(model_class, materialize=False, **options)


def only(report, code: str):
    found = [item for item in report.findings if item.code == code]
    assert len(found) == 1, report
    return found[0]


def test_a_unet_at_pytorch_defaults_is_silent():
    report = trace(zoo.DefaultUNet, input_shape=(1, 3, 16, 16))
    assert report.ok, report
    rows = report.models[0].rows
    # Judged against the layer's own default, and the table says so.
    assert {row.name for row in rows if row.verdict == TORCH_DEFAULT} >= {"stem.weight", "up.weight", "out.bias"}
    assert "torch default" in str(report)


def test_default_writers_are_still_unscaled_and_nothing_else_is_reported():
    report = trace(zoo.DefaultLM)
    assert report.codes() == ["INI101", "INI101"], report
    assert {p for item in report.findings for p in item.params} == {
        f"blocks.{i}.{name}.weight" for i in range(2) for name in ("attn.out_proj", "proj")
    }
    assert all("PyTorch's default init" in item.message for item in report.findings)


def test_zeroed_writers_are_the_plan_when_the_rest_keeps_its_defaults():
    report = trace(zoo.ZeroOutLM)
    assert report.ok, report
    assert report.models[0].policy == "auto -> zero-init"


def test_a_default_that_fits_a_policy_by_coincidence_is_no_plan():
    # 1/sqrt(3 fan_in) on the writers of 3 residual layers is `fan-in`'s 1/sqrt(fan_in)/sqrt(3).
    report = trace(zoo.ThreeBlockLM)
    assert report.models[0].policy == "auto -> gpt2", report
    assert only(report, "INI101").params == [f"blocks.{i}.down.weight" for i in range(3)]
    assert report.codes() == ["INI101"]


def test_an_init_of_the_embedding_alone_is_no_plan_for_the_linears():
    report = trace(zoo.EmbeddingOnlyLM)
    assert report.codes() == ["INI101", "INI101"], report


def test_an_embedding_default_tied_to_the_head_is_still_reported():
    report = trace(zoo.TiedDefaultLM)
    finding = only(report, "INI102")
    assert set(finding.params) == {"tok.weight", "head.weight"}
    assert "ratio 50" in finding.message and "nn.Embedding's default N(0, 1)" in finding.message


def test_a_layer_the_plan_missed_is_one_finding_with_the_plans_evidence():
    report = trace(zoo.LateLayerGPT)
    finding = only(report, "INI102")
    assert report.codes() == ["INI102"]
    assert finding.params == ["pre_head.weight", "pre_head.bias"]
    assert "keep PyTorch's default init while the model's own init follows gpt2 on other layers" in finding.message
    assert "head.weight" in finding.details["plan"] and "ratio 5.1" in finding.message
    assert len(finding.headline) <= 100 and finding.headline.startswith("pre_head left at PyTorch")


def test_an_explicit_init_off_the_plan_keeps_its_own_finding():
    report = trace(zoo.OffPlanGPT)
    assert report.codes() == ["INI102", "INI102"]
    explicit = next(item for item in report.findings if item.params == ["side.weight"])
    assert "requested normal std 0.1" in explicit.message and "default" not in explicit.message
    left = next(item for item in report.findings if item is not explicit)
    assert left.params == ["pre_head.weight", "pre_head.bias"]


def test_an_explicit_policy_judges_the_same_way():
    assert trace(zoo.DefaultUNet, input_shape=(1, 3, 16, 16), policy="fan-in").ok
    assert trace(zoo.ZeroOutLM, policy="gpt2").codes() == ["INI101"]  # zero writers, off gpt2


def test_in_the_runtime_child_by_the_files_path(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--isolated", ZOO, "--runtime", "--model", "DefaultLM", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)
    # The writers' runtime findings merge into the static INI001 ones; no layer default is reported.
    assert code == 1 and {f["code"] for f in findings} <= {"INI001", "INI101"}, findings
    assert all(any(e["message"].startswith("measured: ") for e in f["evidence"]) for f in findings), findings
    code = main(
        [
            *("check", "--isolated", ZOO, "--runtime", "--select", "INI1"),  # the file's LMs have static findings
            *("--factory", f"{ZOO}:build_default_unet", "--input-shape", "1,3,16,16"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "DefaultUNet: policy auto -> gpt2" in out and TORCH_DEFAULT in out, out
