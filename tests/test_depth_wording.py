"""The depth step of a finding says what N counts: the adds of each block, or, for a reversible
block that adds one branch into each half of its split stream, the adds each half takes."""

from __future__ import annotations

from pathlib import Path

from initlint.config import Settings
from initlint.engine import lint_file

IDIOMS = Path(__file__).resolve().parent / "idioms"


def depth_messages(path: Path) -> set[str]:
    findings = lint_file(path, Settings(select=("INI0",)))
    return {step.message for finding in findings for step in finding.evidence if "N = " in step.message}


def test_a_reversible_block_counts_the_adds_into_each_half():
    [message] = depth_messages(IDIOMS / "reversible_halves" / "bad.py")
    assert message == "Coupling x depth blocks, 1 residual add into each part of the split stream: N = depth"


def test_a_plain_block_counts_its_adds():
    [message] = depth_messages(IDIOMS / "stream_through_conv_norm" / "bad.py")
    assert message.endswith("3 residual adds each: N = 3 * depth")
