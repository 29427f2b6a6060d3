"""The runtime report: one row per parameter, findings grouped so one bug is one finding.

Everything here is plain data (no torch), so a report built in the child process travels to
the parent as JSON (`to_dict` / `from_dict`) and becomes `Finding`s there.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Collection

from initlint import roles

_INDEX = re.compile(r"(?<=\.)\d+(?=\.)|^\d+(?=\.)")


def name_pattern(name: str) -> str:
    """`transformer.h.3.attn.c_proj.weight` -> `transformer.h.*.attn.c_proj.weight`."""
    return _INDEX.sub("*", name)


def block_pattern(name: str, copies: Collection[str]) -> str:
    """`layers.3.ff.2.weight` -> `layers.*.ff.2.weight`: only the index of a module that is one
    of several copies of a block (`copies`, module names) becomes `*`; a position inside a block
    (the first and the last Linear of an `nn.Sequential` feed-forward) stays itself."""
    parts = name.split(".")
    return ".".join(
        "*" if part.isdigit() and ".".join(parts[: end + 1]) in copies else part for end, part in enumerate(parts)
    )


def layer_index(name: str) -> int | None:
    match = _INDEX.search(name)
    return int(match.group()) if match else None


@dataclass
class Row:
    name: str
    role: str
    shape: list[int]
    requested: str  # Requested.describe()
    requested_std: float | None
    expected: str  # Expected.describe(), "" when the policy does not judge it
    expected_std: float | None
    ratio: float | None  # requested (or effective) / expected std
    verdict: str  # ok | mismatch | uninitialised | not judged
    factor: float | None = None  # runtime factor between writer and residual add
    measured_std: float | None = None
    measured_verdict: str = ""
    source: list | None = None  # [file, line] of the op that decided the request
    created: list | None = None  # [file, line, column] of the statement creating its module
    #: [file, line, column] of that statement when `created` is a checked file's construction
    #: reaching it instead (the layer's own file is not checked)
    layer_site: list | None = None
    #: Its name with the index of each repeated block as `*` (`block_pattern`), where the child
    #: knew which modules are copies; else every index is.
    group: str = ""

    @property
    def pattern(self) -> str:
        return self.group or name_pattern(self.name)


@dataclass
class RuntimeFinding:
    code: str
    message: str
    params: list[str]
    source: list | tuple | None = None  # [file, line] (a tuple when taken from a `Requested`)
    details: dict[str, Any] = field(default_factory=dict)
    #: [file, line, column] where it is reported: the creation of its first parameter's module.
    created: list | None = None
    #: [file, line, column] of its module's own creation when `created` is elsewhere (`Row.layer_site`).
    layer_site: list | None = None
    #: At most 100 characters: what is wrong and the numbers (`message` has the reasoning).
    headline: str = ""


@dataclass
class ModelReport:
    model: str
    policy: str
    rows: list[Row] = field(default_factory=list)
    findings: list[RuntimeFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    stream_variance: list[list] = field(default_factory=list)  # [depth, variance]
    #: The same forward with every writer at its expected std (what the policy predicts).
    expected_stream_variance: list[list] = field(default_factory=list)
    source_file: str = ""
    class_line: int = 0
    #: The factory that built it (`build_model`) when that is not the class name in `model`.
    built_by: str = ""

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelReport":
        data = dict(data)
        data["rows"] = [Row(**row) for row in data.get("rows", [])]
        data["findings"] = [RuntimeFinding(**item) for item in data.get("findings", [])]
        return cls(**data)

    def table(self) -> str:
        return render_table(self.rows)

    def summary(self) -> str:
        """Header, notes and the table (no findings: reporters print those)."""
        lines = [
            f"{self.model}: policy {self.policy}, {len(self.rows)} parameters, "
            f"{len(self.findings)} finding{'s' if len(self.findings) != 1 else ''}"
        ]
        lines += [f"  note: {note}" for note in self.notes]
        lines.append(self.table())
        return "\n".join(lines)

    def __str__(self) -> str:
        return "\n".join([self.summary()] + [f"  {item.code} {item.message}" for item in self.findings])


@dataclass
class Report:
    """What `verify` returns: `assert report.ok, report` prints the table and the findings."""

    models: list[ModelReport] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: error -> [file, line] of the model class (or factory) that failed, where one did.
    error_sites: dict[str, list] = field(default_factory=dict)

    def failed(self, error: str, site: tuple[str, int] | None) -> None:
        """A model that could not be built or verified, and where it is written when known."""
        self.errors.append(error)
        if site is not None and site[0]:
            self.error_sites[error] = list(site)

    @property
    def ok(self) -> bool:
        return not self.errors and all(model.ok for model in self.models)

    @property
    def findings(self) -> list[RuntimeFinding]:
        return [item for model in self.models for item in model.findings]

    def codes(self) -> list[str]:
        return sorted(item.code for item in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "models": [model.to_dict() for model in self.models],
            "errors": list(self.errors),
            "error_sites": dict(self.error_sites),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Report":
        models = [ModelReport.from_dict(m) for m in data.get("models", [])]
        return cls(models, list(data.get("errors", [])), dict(data.get("error_sites", {})))

    def __str__(self) -> str:
        parts = [f"error: {error}" for error in self.errors] + [str(model) for model in self.models]
        return "\n".join(parts) or "no model verified"

    __repr__ = __str__


def _number(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}g}"


def render_table(rows: list[Row]) -> str:
    """One line per (role, name pattern, request): expected vs requested vs measured, ratio, verdict."""
    groups: dict[tuple, list[Row]] = {}
    for row in rows:
        groups.setdefault((row.role, row.pattern, row.requested, row.expected, row.verdict), []).append(row)
    header = ("role", "parameters", "n", "expected", "requested", "measured", "ratio", "verdict")
    lines: list[tuple[str, ...]] = [header]
    for (role, pattern, requested, expected, verdict), members in groups.items():
        measured = [m.measured_std for m in members if m.measured_std is not None]
        measured_text = (
            "-"
            if not measured
            else (
                _number(measured[0])
                if len(measured) == 1
                else f"{_number(min(measured), 3)}..{_number(max(measured), 3)}"
            )
        )
        ratios = [m.ratio for m in members if m.ratio is not None]
        ratio_text = (
            "-"
            if not ratios
            else (f"{min(ratios):.3g}" if max(ratios) - min(ratios) < 1e-3 else f"{min(ratios):.3g}..{max(ratios):.3g}")
        )
        flags = {m.measured_verdict for m in members if m.measured_verdict}
        factors = {round(m.factor, 4) for m in members if m.factor is not None and abs(m.factor - 1) > 0.05}
        runtime = f" x{', '.join(f'{f:g}' for f in sorted(factors))} in forward" if factors else ""
        lines.append(
            (
                roles.label(role),
                pattern,
                str(len(members)),
                expected or "-",
                requested + runtime,
                measured_text,
                ratio_text,
                verdict + (f" / measured {', '.join(sorted(flags))}" if flags else ""),
            )
        )
    note = ""
    if all(row.measured_std is None for row in rows):
        # Without --materialize no tensor is built: a column of dashes would read as a failed measurement.
        lines = [line[:5] + line[6:] for line in lines]
        note = "\n  (std read off the init calls; --materialize also builds and measures real tensors)"
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return (
        "\n".join("  " + "  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)
        + note
    )
