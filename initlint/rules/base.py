"""The contract every rule module fulfils.

A rule reads the shared analysis (never the syntax tree again) and yields
`Violation`s anchored on CST nodes; the engine turns them into positioned
`Finding`s, applies configuration and `# noqa`, and hands them to reporters.

Each rule carries its own documentation and its own good/bad examples. In a
bad example, every line that must be reported ends with `# expect: INInnn`;
the test suite runs every example of every rule automatically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Iterator, Protocol

import libcst as cst
from libcst.metadata import CodeRange

from initlint.codes import Severity, code_info

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis import Analysis


class NodePositions(Protocol):
    """Where the nodes a violation names are: what the engine reads to position findings (the
    analysis computes them lazily, only for files that report something)."""

    def __getitem__(self, node: cst.CSTNode, /) -> CodeRange: ...


@dataclass(frozen=True)
class FixSpec:
    """A fix in terms of nodes: replace each node's source with a text; the engine positions it."""

    description: str
    replacements: tuple[tuple[cst.CSTNode, str], ...]
    #: Safe fixes keep the model's behaviour; unsafe ones change its numbers (`--unsafe-fixes`).
    safe: bool = False


@dataclass(frozen=True)
class EvidenceSpec:
    """One step of a violation's reasoning: at a node of the checked file (positioned by the
    engine), or at an explicit line of another file (project-wide analysis)."""

    message: str
    node: cst.CSTNode | None = None
    line: int | None = None
    path: str | None = None


@dataclass(frozen=True)
class Violation:
    node: cst.CSTNode
    #: The headline, at most 100 characters; the reasoning goes into `evidence`.
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    fix: FixSpec | None = None
    evidence: tuple[EvidenceSpec, ...] = ()
    help: str | None = None
    #: The code the finding belongs to (INI001: the writer's construction, wherever its init is).
    #: Where it lies in another file of the project, that file reports the finding when it is
    #: checked, and the checked file stays silent.
    owner: cst.CSTNode | None = None


class Rule:
    """A rule: its code's row in `initlint.codes` (name, summary, severity, default, producer)
    plus its documentation, examples and `check`. A subclass sets `code`; the rest of the row
    is filled in from the table, and a value a subclass repeats must agree with it."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    severity: ClassVar[Severity] = "warning"
    default_enabled: ClassVar[bool] = True
    #: Runtime and tool rules (INI1xx, INI9xx) are reported outside `check`: by the runtime
    #: verifier or by the engine itself.
    emitted_by_engine: ClassVar[bool] = False
    #: Markdown, ruff-style: What it does / Why is this bad? / Example / Use instead / Fix safety.
    docs: ClassVar[str]
    good_examples: ClassVar[tuple[str, ...]] = ()
    bad_examples: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "code" not in vars(cls):
            return
        row = code_info(cls.code)
        table = {
            "name": row.name,
            "summary": row.summary,
            "severity": row.severity,
            "default_enabled": row.default_enabled,
            "emitted_by_engine": row.producer != "static",
        }
        for attribute, value in table.items():
            declared = vars(cls).get(attribute, value)
            if declared != value:
                raise TypeError(
                    f"{cls.__name__}.{attribute} = {declared!r} disagrees with initlint/codes.py ({value!r})"
                )
            setattr(cls, attribute, value)

    def check(self, analysis: "Analysis") -> Iterator[Violation]:
        return iter(())

    @classmethod
    def documentation(cls) -> str:
        status = "on by default" if cls.default_enabled else "off by default (opt in with `select`)"
        return f"# {cls.code} `{cls.name}`\n\n{cls.summary}\n\n_{status}; severity {cls.severity}._\n\n{cls.docs.strip()}\n"
