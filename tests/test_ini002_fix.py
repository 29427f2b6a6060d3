"""INI002's fix through the real CLI: unsafe, so only with --unsafe-fixes; the result is clean."""

from __future__ import annotations

import subprocess
import sys

import pytest
from gpt_parts import GENERIC_INIT, gpt


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "initlint", "check", "-q", "--isolated", *args], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "std, fixed",
    [
        ("0.02 / math.sqrt(config.n_layer)", "0.02 / math.sqrt(2 * config.n_layer)"),
        ("0.02 * config.n_layer ** -0.5", "0.02 * (2 * config.n_layer) ** -0.5"),
        ("0.02 * (config.n_layer) ** -0.5", "0.02 * (2 * config.n_layer) ** -0.5"),
    ],
)
def test_unsafe_fix_doubles_the_depth_inside_the_reported_expression(tmp_path, std, fixed):
    init_call = f"""
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        nn.init.normal_(p, std={std})
"""
    model = tmp_path / "model.py"
    model.write_text(gpt(init_call, GENERIC_INIT))
    before = model.read_text()

    safe_only = run(str(model), "--fix")
    assert safe_only.returncode == 1 and "INI002" in safe_only.stdout
    assert model.read_text() == before  # an unsafe fix is never applied by --fix alone

    applied = run(str(model), "--fix", "--unsafe-fixes")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert model.read_text() == before.replace(std, fixed)
    assert run(str(model)).returncode == 0
