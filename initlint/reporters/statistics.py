"""`--statistics`: how many findings each rule produced, most frequent first."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from initlint.findings import Finding


def render(findings: Sequence[Finding]) -> str:
    counts = Counter((finding.code, finding.name) for finding in findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max((len(str(count)) for _, count in rows), default=1)
    lines = [f"{count:>{width}}  {code}  {name}" for (code, name), count in rows]
    return "".join(line + "\n" for line in lines)
