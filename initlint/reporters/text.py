"""`path:line:col: CODE message`, the source line with a caret underline, then the evidence
(`--> path:line:col: step`), `= help:` and the rule's documentation, as rustc and ruff print them."""

from __future__ import annotations

from typing import Sequence

from initlint.findings import Finding
from initlint.reporters import evidence_location, fix_applicable, location, rule_url

RESET, BOLD, DIM, RED, YELLOW, CYAN, BLUE = (
    "\033[0m",
    "\033[1m",
    "\033[2m",
    "\033[31m",
    "\033[33m",
    "\033[36m",
    "\033[34m",
)
_SEVERITY_COLOR = {"error": RED, "warning": YELLOW, "note": CYAN}
#: Marks a finding `--fix` would fix, as ruff does.
FIXABLE = "[*]"


def _paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{RESET}" if color else text


def headline(finding: Finding, color: bool = False, fixable: bool = False) -> str:
    """The grep-able first line; the same shape flake8 prints for the plugin's findings."""
    where = _paint(f"{location(finding)}:", BOLD, color)
    code = _paint(finding.code, BOLD + _SEVERITY_COLOR.get(finding.severity, ""), color)
    mark = f" {_paint(FIXABLE, CYAN, color)}" if fixable else ""
    return f"{where} {code}{mark} {finding.message}"


def source_lines(path: str, cell: int | None = None) -> tuple[str, ...]:
    """The file's (or notebook cell's) lines as the engine saw them; empty when unreadable."""
    from initlint.engine import decode
    from initlint.safety import read_regular_file
    from initlint.sourcetext import physical_lines

    if cell is not None:
        from initlint.notebook import cell_lines

        return cell_lines(path, cell)
    try:
        text = decode(read_regular_file(path))
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return ()
    return tuple(line.rstrip("\r\n") for line in physical_lines(text))


def _lines_of(finding: Finding, sources) -> tuple[str, ...]:
    if finding.path in sources:
        from initlint.sourcetext import physical_lines

        return tuple(line.rstrip("\r\n") for line in physical_lines(sources[finding.path]))
    return source_lines(finding.path, finding.cell)


def snippet(finding: Finding, color: bool = False, lines: Sequence[str] | None = None) -> list[str]:
    """The finding's source line and a caret line under its span (none if the line is gone)."""
    lines = source_lines(finding.path, finding.cell) if lines is None else lines
    if not 1 <= finding.line <= len(lines):
        return []
    line = lines[finding.line - 1]
    start = min(max(finding.column - 1, 0), len(line))
    end = finding.end_column - 1 if finding.end_line == finding.line else len(line)
    end = max(min(end, len(line)), start + 1)
    # Keep tabs so the caret lines up however the terminal expands them.
    padding = "".join(char if char == "\t" else " " for char in line[:start])
    gutter = f"{finding.line:>5} | "
    return [
        _paint(gutter, DIM, color) + line,
        _paint(" " * (len(gutter) - 2) + "| ", DIM, color) + padding + _paint("^" * (end - start), RED, color),
    ]


def explanation(finding: Finding, color: bool = False) -> list[str]:
    """The evidence steps, the help and the doc link under a finding."""
    out = [
        f"   {_paint('-->', BLUE, color)} {evidence_location(finding, step)}: {step.message}"
        for step in finding.evidence
    ]
    if finding.help:
        out.append(f"    {_paint('= help:', BOLD, color)} {finding.help}")
    url = rule_url(finding.code)
    if url and (finding.evidence or finding.help):
        out.append(f"    {_paint('= docs:', BOLD, color)} {url}")
    return out


def summary(findings: Sequence[Finding], files_checked: int) -> str:
    noun = "finding" if len(findings) == 1 else "findings"
    files = len({finding.path for finding in findings})
    checked = f" ({files_checked} file{'s' if files_checked != 1 else ''} checked)" if files_checked else ""
    return f"Found {len(findings)} {noun} in {files} file{'s' if files != 1 else ''}{checked}."


def fix_hint(findings: Sequence[Finding], unsafe_fixes: bool) -> str | None:
    """What `--fix` (and `--unsafe-fixes`) would do for these findings, ruff's wording."""
    fixable = sum(fix_applicable(finding, unsafe_fixes) for finding in findings)
    hidden = sum(finding.fix is not None and not fix_applicable(finding, unsafe_fixes) for finding in findings)
    parts = []
    if fixable:
        flags = "--fix --unsafe-fixes" if unsafe_fixes else "--fix"
        parts.append(f"{FIXABLE} {fixable} fixable with `{flags}`.")
    if hidden:
        parts.append(f"{hidden} fix{'es' if hidden != 1 else ''} available with `--unsafe-fixes`.")
    return " ".join(parts) or None


def render(findings: Sequence[Finding], options) -> str:
    out: list[str] = []
    files: dict[tuple[str, int | None], tuple[str, ...]] = {}  # each file read once per report
    verbose = options.summary
    for finding in findings:
        out.append(headline(finding, options.color, fix_applicable(finding, options.unsafe_fixes)))
        if options.show_source:
            key = (finding.path, finding.cell)
            if key not in files:
                files[key] = _lines_of(finding, options.sources)
            out.extend(snippet(finding, options.color, files[key]))
        if verbose:
            out.extend(explanation(finding, options.color))
    if findings and options.summary:
        out.append(summary(findings, options.files_checked))
        hint = fix_hint(findings, options.unsafe_fixes)
        if hint:
            out.append(hint)
    return "".join(line + "\n" for line in out)
