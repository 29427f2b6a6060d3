"""Static and runtime findings merge by the layers the static finding's `details` name, never by
names quoted in its message (no torch: the runtime finding is built by hand)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from initlint.config import Settings
from initlint.engine import lint_file
from initlint.findings import Evidence, new_finding
from initlint.runtime.cli import merge_findings

EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "swiglu_wrong_matrix.py")


def runtime_finding(param: str):
    return new_finding(
        "INI102",
        EXAMPLE,
        "measured",
        (1, 1, 1, 1),
        details={"params": [param]},
        evidence=(Evidence("measured: std 0.0102", 1),),
    )


def test_ini001_names_the_layer_a_misdirected_depth_factor_reaches_in_its_details():
    (static,) = lint_file(EXAMPLE, Settings())
    assert static.code == "INI001" and "reaches `layers.*.mlp.w2.weight` instead" in str(static.evidence)
    assert static.details["layers"] == ["layers.*.mlp.w3", "layers.*.mlp.w2"]


def test_a_runtime_finding_on_that_layer_merges_into_the_ini001_finding():
    static = lint_file(EXAMPLE, Settings())
    (merged,) = merge_findings(static, [runtime_finding("layers.1.mlp.w2.weight")], Settings())
    assert merged.code == "INI001" and merged.details["runtime"]["code"] == "INI102"
    assert any(e.message.startswith("measured: ") for e in merged.evidence)


def test_the_message_text_alone_merges_nothing():
    (static,) = lint_file(EXAMPLE, Settings())
    bare = replace(static, details={"layer": "layers.*.mlp.w3"})  # the message still quotes w2
    assert len(merge_findings([bare], [runtime_finding("layers.1.mlp.w2.weight")], Settings())) == 2


def test_a_runtime_finding_uses_a_noqa_code_the_static_pass_called_unused(tmp_path):
    """The runtime reads INI904's stale codes from its details: a message worded otherwise
    changes nothing."""
    from initlint.noqa import UNUSED_CODE

    model = tmp_path / "model.py"
    model.write_text("import torch\nx = 1  # noqa: INI101, INI102\n")
    settings = Settings(extend_select=("INI904",))
    (unused,) = lint_file(str(model), settings)
    assert unused.code == UNUSED_CODE and unused.details["codes"] == ["INI101", "INI102"]
    reworded = replace(unused, message="two codes hide nothing here")
    measured = replace(runtime_finding("x.weight"), path=str(model), line=2)
    (left,) = merge_findings([reworded], [measured], settings)
    assert left.code == UNUSED_CODE and left.details["codes"] == ["INI101"]
