"""One JSON array of findings (the `Finding.to_dict` fields, 1-based lines and columns)."""

from __future__ import annotations

import json
from typing import Sequence

from initlint.findings import Finding


def render(findings: Sequence[Finding], options) -> str:
    # `details` is evidence for humans; anything not JSON-native is shown as text.
    return json.dumps([finding.to_dict() for finding in findings], indent=2, default=str) + "\n"
