"""Conventions stated in [tool.initlint] reach the analysis (real CLI, real pyproject.toml)."""

from __future__ import annotations

import json
import subprocess
import sys

from gpt_parts import gpt

INIT_WITH_A_HELPER = """
def _init_weights(self, module):
    if isinstance(module, nn.Linear):
        init_normal(module.weight, std=0.02)
"""


def check(folder, *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "initlint", "check", "-q", *options, str(folder / "model.py")]
    return subprocess.run(command, capture_output=True, text=True, cwd=folder)


def test_init_helpers_make_a_project_helper_count_as_normal_(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(
        gpt("self.apply(self._init_weights)", INIT_WITH_A_HELPER, imports="from .inits import init_normal")
    )
    (tmp_path / "pyproject.toml").write_text("[tool.initlint]\n")
    unknown = check(tmp_path)
    assert unknown.returncode == 0, unknown.stdout  # a helper from elsewhere: initlint cannot tell

    (tmp_path / "pyproject.toml").write_text('[tool.initlint]\ninit-helpers = ["init_normal"]\n')
    known = check(tmp_path, "--format", "json")
    assert known.returncode == 1
    findings = json.loads(known.stdout)
    assert [f["code"] for f in findings] == ["INI001", "INI001"]
    # The init that decides is the helper's, named in each finding's evidence.
    assert all(any("init_normal(std=0.02)" in step["message"] for step in f["evidence"]) for f in findings)


def test_depth_names_let_an_unusual_name_count_as_depth(tmp_path):
    init_call = """
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        nn.init.normal_(p, std=0.02 / math.sqrt(config.stack_height))
"""
    init_function = """
def _init_weights(self, module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, std=0.02)
"""
    model = tmp_path / "model.py"
    model.write_text(gpt(init_call, init_function))
    (tmp_path / "pyproject.toml").write_text("[tool.initlint]\n")
    assert check(tmp_path).stdout.count("INI001") == 2  # `stack_height` means nothing to initlint

    (tmp_path / "pyproject.toml").write_text('[tool.initlint]\ndepth-names = ["stack_height"]\n')
    result = check(tmp_path)
    assert "INI001" not in result.stdout and "INI002" in result.stdout
