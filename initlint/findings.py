"""What the engine hands to reporters: positioned, self-describing findings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from initlint.codes import code_info

#: (line, column, end_line, end_column), 1-based; the end is exclusive.
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Edit:
    """Replace the source between two 1-based (line, column) positions with `text`."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]
    safe: bool = True
    #: SHA-256 of the file's bytes when it was linted (set by `engine.lint_file`): a fix is
    #: only applied to exactly that content, never to a file that changed since.
    source_sha256: str | None = None


@dataclass(frozen=True)
class Evidence:
    """One step of the reasoning behind a finding, at its own position.

    Reporters print these under the headline (`--> path:line:col` plus the text), SARIF as
    `relatedLocations`, JSON as a list. `path` is None when it is the finding's own file.
    """

    message: str
    line: int
    column: int = 1
    path: str | None = None
    #: Notebooks: the 1-based code cell `line` counts in (None in a plain source file).
    cell: int | None = None


@dataclass(frozen=True)
class Finding:
    """One diagnostic. Lines and columns are 1-based; `end_*` is exclusive."""

    code: str
    name: str
    #: The headline: what is wrong and the numbers, at most 100 characters, never cut mid-word.
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    severity: str = "warning"
    fix: Fix | None = None
    # Evidence a reviewer or a fix can use: the layer, the init op, source lines.
    details: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: The steps a reviewer follows: the init that decides, the residual add, the depth expression.
    evidence: tuple[Evidence, ...] = field(default=(), compare=False, hash=False)
    #: What to write instead, one sentence (`= help:` in text output).
    help: str | None = field(default=None, compare=False, hash=False)
    #: Notebooks: the 1-based code cell; `line`/`end_line` then count within that cell.
    cell: int | None = None

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.column, self.code, self.message)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.fix is None:
            data["fix"] = None
        return data


def new_finding(
    code: str,
    path: str,
    message: str,
    span: Span,
    *,
    details: dict[str, object] | None = None,
    fix: Fix | None = None,
    evidence: tuple[Evidence, ...] = (),
    help: str | None = None,
) -> Finding:
    """A finding of `code` at `span`; name and severity come from the code table, so static,
    runtime and tool findings cannot disagree about them (an unknown code raises)."""
    row = code_info(code)
    line, column, end_line, end_column = span
    return Finding(
        code=row.code,
        name=row.name,
        message=message,
        path=path,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        severity=row.severity,
        details=details or {},
        fix=fix,
        evidence=evidence,
        help=help,
    )


def tool_finding(code: str, path: str, message: str, line: int = 1, column: int = 1) -> Finding:
    """A finding about the file as a whole or one point of it (INI110, INI9xx)."""
    return new_finding(code, path, message, (line, column, line, column))
