"""The docs stay true to the code: generated rule docs are current, README links resolve."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from initlint.rules import all_rules

REPO = Path(__file__).resolve().parent.parent


def test_rule_docs_are_generated_from_the_current_rules():
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_rule_docs.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_readme_names_every_static_rule_and_its_links_exist():
    readme = (REPO / "README.md").read_text()
    for rule in all_rules():
        if rule.code.startswith("INI0"):
            assert rule.code in readme and rule.name in readme, rule.code
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        if not link.startswith("http"):
            assert (REPO / link).exists(), link


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_command():
    readme = (REPO / "README.md").read_text()
    commands = re.findall(r"^python3 -m venv .*$", readme, flags=re.M)
    assert len(commands) >= 2
    assert "initlint check examples/" in commands[0]
    test_command = commands[1].split("&& ", 2)[-1]
    ci = (REPO / ".ci" / "run").read_text()
    assert test_command in ci
