"""Bug classes only a run shows, each caught on its bad model and silent on its good twin
(`missed_zoo.py`), from the meta trace alone (no real tensors)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from initlint.runtime import verify  # noqa: E402

import missed_zoo  # noqa: E402
from missed_zoo import BAD, GOOD, make  # noqa: E402


def traced(recipe: str):
    return verify(lambda: make(recipe), materialize=False, label=recipe)


@pytest.mark.parametrize("recipe", GOOD)
def test_good_twins_are_silent(recipe):
    report = traced(recipe)
    assert report.ok, report


@pytest.mark.parametrize(
    "bad, code, words",
    [
        ("clones", "INI106", "identical values"),
        ("compounding", "INI104", "init_weights() a second time"),
        ("wide-trunc", "INI102", "nothing is truncated"),
        ("fan-out", "INI102", "fan-in read from the wrong dimension"),
        ("lost-zero", "INI102", "(constant 0) is redrawn"),
    ],
)
def test_bad_models_are_caught_with_the_cause(bad, code, words):
    assert bad in BAD
    report = traced(bad)
    assert report.codes() and set(report.codes()) == {code}, report
    assert any(words in (item.headline or item.message) for item in report.findings), report


def test_clones_name_every_copied_block():
    [finding] = traced("clones").findings
    groups = finding.details["groups"]
    assert len(groups) == 4 and all(len(group) == missed_zoo.DEPTH for group in groups)
    assert {name.split(".", 2)[2] for group in groups for name in group} == {
        "qkv.weight",
        "proj.weight",
        "up.weight",
        "down.weight",
    }


def test_compounding_names_the_second_std():
    [finding] = traced("compounding").findings
    # 0.02/sqrt(8) once is right; every further call divides by sqrt(8) again.
    assert "normal std 0.0025 -> normal std 0.0008839" in finding.message


def test_wide_truncation_says_how_wide():
    [finding] = traced("wide-trunc").findings
    assert "[-2, 2]" in finding.headline and "a=-2*std, b=2*std" in finding.message
    assert sorted(finding.params)[0] == "blocks.0.down.weight" and len(finding.params) == 2 * missed_zoo.DEPTH


def test_fan_out_is_one_finding_under_the_fan_in_policy():
    report = traced("fan-out")
    assert report.models[0].policy == "auto -> fan-in"
    [finding] = report.findings
    # Square weights (proj) read the same either way; every other weight is named.
    assert not any(name.endswith("proj.weight") for name in finding.params)
    assert any(name.endswith("qkv.weight") for name in finding.params) and "head.weight" in finding.params


def test_lost_zero_names_both_lines():
    source = open(missed_zoo.__file__).read().splitlines()
    for finding in traced("lost-zero").findings:
        special, generic = finding.details["lost"], finding.details["requested"]
        assert special == "constant 0" and generic.startswith("normal std")
        assert "nn.init.zeros_" in source[int(finding.headline.split("line ")[1].split()[0]) - 1]
        assert "nn.init.normal_(module.weight, std=0.02)" in source[finding.source[1] - 1]


@pytest.mark.parametrize("factory", [missed_zoo.build_model, missed_zoo.build_on_meta])
def test_init_outside_the_constructor_is_silent_even_materialised(factory):
    report = verify(factory, label=factory.__name__)
    assert report.ok, report
    assert report.models[0].model == "TinyGPT" and report.models[0].built_by == factory.__name__
