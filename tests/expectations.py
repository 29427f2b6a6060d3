"""`# expect: INI001` markers in test sources: the findings a source must produce, by line."""

from __future__ import annotations

import re

from initlint.config import Settings
from initlint.engine import lint_source

EXPECT = re.compile(r"#\s*expect:\s*(INI\d{3}(?:\s*,\s*INI\d{3})*)")


def expected_findings(source: str) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            found.extend((number, code.strip()) for code in match.group(1).split(","))
    return sorted(found)


def reported(source: str, select: tuple[str, ...] = ("INI0",)) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in lint_source(source, "model.py", Settings(select=select)))
