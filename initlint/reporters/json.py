"""One JSON array of findings (the `Finding.to_dict` fields, 1-based lines and columns).

`message` is the headline; `evidence` lists the reasoning steps, each with its own `path`,
`line`, `column` (and `cell` in a notebook); `url` is the rule's documentation.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from initlint.findings import Finding
from initlint.reporters import fix_applicable, rule_url


def finding_dict(finding: Finding, unsafe_fixes: bool = False) -> dict[str, Any]:
    data = finding.to_dict()
    for step in data["evidence"]:
        if step["path"] is None:  # the finding's own file (and cell)
            step["path"] = finding.path
            step["cell"] = finding.cell if step["cell"] is None else step["cell"]
    data["url"] = rule_url(finding.code)
    data["fixable"] = fix_applicable(finding, unsafe_fixes)
    return data


def render(findings: Sequence[Finding], options) -> str:
    # `details` is evidence for humans; anything not JSON-native is shown as text.
    data = [finding_dict(finding, options.unsafe_fixes) for finding in findings]
    return json.dumps(data, indent=2, default=str) + "\n"
