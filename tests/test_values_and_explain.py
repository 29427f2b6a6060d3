"""Symbolic stds, their depth classes, and `initlint explain` on real files."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import libcst as cst
import pytest

from initlint.analysis.scaling import classify
from initlint.analysis.values import Monomial

REPO = Path(__file__).resolve().parent.parent
NODE = cst.Name("x")
L = Monomial.atom("n_layer")
DEPTH = frozenset({"n_layer"})


def test_monomial_arithmetic_keeps_the_multiplier_next_to_the_depth():
    std = Monomial.of(0.02) * (Monomial.of(2) * L).pow(Fraction(-1, 2), NODE)
    assert std.exponent("n_layer") == Fraction(-1, 2)
    assert std.const == pytest.approx(0.02 / 2**0.5)
    assert std.power_of("n_layer").inner_coefficient == 2.0
    assert std.describe() == "0.0141421/sqrt(n_layer)"


@pytest.mark.parametrize(
    "std, base, kind",
    [
        (Monomial.of(0.02) * (Monomial.of(2) * L).pow(Fraction(-1, 2), NODE), None, "sqrt_2l"),
        (Monomial.of(0.02) * L.pow(Fraction(-1, 2), NODE), None, "sqrt_l"),
        (Monomial.of(0.02 * 2**-0.5) * L.pow(Fraction(-1, 2), NODE), Monomial.of(0.02), "sqrt_2l"),
        (Monomial.of(0.02) * L.pow(Fraction(-1), NODE), None, "small_init"),
        (Monomial.of(0.02) * Monomial.atom("(@layer+1)").pow(Fraction(-1, 2), NODE), None, "per_layer"),
        (Monomial.of(0.0), None, "zero"),
        (Monomial.of(0.02), None, "none"),
        (None, None, "unknown"),
    ],
)
def test_depth_classes(std, base, kind):
    assert classify(std, DEPTH, base).kind == kind


def explain(*paths: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", "explain", *paths], capture_output=True, text=True, cwd=REPO
    )


def test_explain_shows_each_parameter_with_its_final_init_and_line():
    result = explain("examples/gpt2_nanogpt.py")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip().startswith("transformer.")}
    writer = rows["transformer.h.*.attn.c_proj.weight"]
    assert "residual writer" in writer and "GPT-2 1/sqrt(2L)" in writer and "line " in writer
    assert "residual writer" not in rows["transformer.h.*.attn.c_attn.weight"]
    assert "2 residual add(s) per block, pre-norm" in result.stdout


def test_explain_uses_the_runtime_roles_and_constants_and_lists_optional_biases():
    result = explain("tests/runtime/nanogpt_layernorm.py")
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip().startswith("transformer.")}
    assert "norm gain" in rows["transformer.ln_f.weight"] and "constant 1" in rows["transformer.ln_f.weight"]
    # `nn.Parameter(torch.zeros(ndim)) if bias else None`, with the config's `bias: bool = True`.
    assert "norm bias" in rows["transformer.ln_f.bias"] and "constant 0" in rows["transformer.ln_f.bias"]
    assert " embedding " in rows["transformer.wte.weight"]  # tied to lm_head: still the embedding


NORM_WITH_OWN_NAMES = """
import torch
import torch.nn as nn


class Norm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.a_2 = nn.Parameter(torch.ones(width))
        self.b_2 = nn.Parameter(torch.zeros(width))

    def forward(self, x):
        centred = x - x.mean(-1, keepdim=True)
        return self.a_2 * centred / (centred.std(-1, keepdim=True) + 1e-6) + self.b_2


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = Norm(width)
        self.proj = nn.Linear(width, width)
        self.offset = nn.Parameter(torch.randn(width) * 0.02)

    def forward(self, x):
        return x + self.proj(self.norm(x)) + self.offset


class Net(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""


def test_explain_names_a_norms_parameters_by_how_its_forward_uses_them(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(NORM_WITH_OWN_NAMES)
    rows = {line.split()[0]: line for line in explain(str(model)).stdout.splitlines() if "blocks." in line}
    assert "norm gain" in rows["blocks.*.norm.a_2"]  # multiplies the normalised value
    assert "norm bias" in rows["blocks.*.norm.b_2"]  # is added to it
    # The factor is shown once, after the factory call it scales.
    assert "torch.randn(...) * 0.02 " in rows["blocks.*.offset"]


def test_explain_leaves_an_optional_bias_out_when_the_config_turns_it_off(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(
        Path(REPO, "tests/runtime/nanogpt_layernorm.py").read_text().replace("bias: bool = True", "bias: bool = False")
    )
    assert "transformer.ln_f.bias" not in explain(str(model)).stdout


def test_explain_marks_unscaled_writers_and_survives_bad_files(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import torch.nn as nn\nclass A(nn.Module:\n    pass\n")
    result = explain("examples/gpt2_unscaled.py", str(broken))
    assert result.returncode == 0
    assert "no depth factor" in result.stdout
    assert f"{broken}: cannot parse" in result.stdout
    assert "Traceback" not in result.stderr


def test_explain_gives_one_line_for_a_file_too_deep_to_parse(tmp_path):
    deep = tmp_path / "deep.py"
    deep.write_text("import torch.nn as nn\nx = " + " + ".join(["1"] * 20000) + "\n")
    result = explain(str(deep))
    assert result.returncode == 0
    assert result.stdout.strip().startswith(f"{deep}: cannot parse: nesting too deep")
