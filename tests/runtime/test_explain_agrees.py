"""`initlint explain` and the `--runtime` table say the same thing, row by row: the same
parameters, the same role words, the same init kind and std (or constant) for each."""

from __future__ import annotations

import math
import os

import pytest

pytest.importorskip("torch")

import libcst as cst  # noqa: E402

from initlint import roles  # noqa: E402
from initlint.analysis import analyze  # noqa: E402
from initlint.config import Settings  # noqa: E402
from initlint.explain import constant_of, plan_rows  # noqa: E402
from initlint.runtime.isolation import run_isolated  # noqa: E402
from initlint.runtime.report import name_pattern  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
#: (file, the root class, the name of its depth: the symbol in the static stds)
CASES = [
    (os.path.join(HERE, "nanogpt_layernorm.py"), "GPT", "n_layer"),
    (os.path.join(ROOT, "examples", "gpt2_nanogpt.py"), "GPT", "n_layer"),
    (os.path.join(ROOT, "examples", "llama_swiglu.py"), "Transformer", "n_layers"),  # an untied head
]


def static_rows(path: str, model: str, symbols: dict[str, float]) -> dict[str, tuple[str, str]]:
    source = open(path, encoding="utf-8").read()
    analysis = analyze(cst.parse_module(source), Settings().analysis, source)
    root = next(root for root in analysis.roots if root.type_name == model)
    rows = {}
    for row in plan_rows(analysis, root):
        constant = constant_of(row.final)
        if constant is not None:
            value = f"constant {constant}"
        else:
            std = row.final.std
            assert std is not None, row.name
            value = f"std {std.const * math.prod(symbols[a] ** float(e) for a, e in std.atoms):.4g}"
        for name in [row.name, *row.tied]:
            rows[name] = (roles.label(row.role), value)
    return rows


def runtime_rows(path: str) -> tuple[str, dict[str, tuple[str, str]], dict]:
    result = run_isolated({"file": path, "policy": "auto"}, 300)
    assert result.report is not None, result.error
    (model,) = result.report["models"]
    rows = {}
    for row in model["rows"]:
        requested = row["requested"]
        value = requested if requested.startswith("constant") else f"std {row['requested_std']:.4g}"
        rows[name_pattern(row["name"])] = (roles.label(row["role"]), value)
    return model["model"], rows, model


@pytest.mark.parametrize("path, model, depth", CASES, ids=lambda case: os.path.basename(str(case)))
def test_explain_rows_match_the_runtime_table(path, model, depth):
    built, measured, report = runtime_rows(path)
    assert built == model
    assert static_rows(path, model, {depth: _depth(report)}) == measured


def _depth(report: dict) -> int:
    """n_layer as the runtime built it: one more than the highest block index."""
    return 1 + max(int(part) for row in report["rows"] for part in row["name"].split(".") if part.isdigit())
