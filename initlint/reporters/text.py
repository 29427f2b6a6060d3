"""`path:line:col: CODE message`, then the source line with a caret underline."""

from __future__ import annotations

from typing import Sequence

from initlint.findings import Finding

RESET, BOLD, DIM, RED, YELLOW, CYAN = "\033[0m", "\033[1m", "\033[2m", "\033[31m", "\033[33m", "\033[36m"
_SEVERITY_COLOR = {"error": RED, "warning": YELLOW, "note": CYAN}


def _paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{RESET}" if color else text


def headline(finding: Finding, color: bool = False) -> str:
    """The grep-able first line; the same shape flake8 prints for the plugin's findings."""
    location = _paint(f"{finding.path}:{finding.line}:{finding.column}:", BOLD, color)
    code = _paint(finding.code, BOLD + _SEVERITY_COLOR.get(finding.severity, ""), color)
    return f"{location} {code} {finding.message}"


def source_lines(path: str) -> tuple[str, ...]:
    """The file's lines as the engine saw them; empty when it cannot be read again."""
    from initlint.engine import decode
    from initlint.noqa import physical_lines
    from initlint.safety import read_regular_file

    try:
        text = decode(read_regular_file(path))
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return ()
    return tuple(line.rstrip("\r\n") for line in physical_lines(text))


def snippet(finding: Finding, color: bool = False, lines: Sequence[str] | None = None) -> list[str]:
    """The finding's source line and a caret line under its span (none if the line is gone)."""
    lines = source_lines(finding.path) if lines is None else lines
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


def summary(findings: Sequence[Finding], files_checked: int) -> str:
    noun = "finding" if len(findings) == 1 else "findings"
    files = len({finding.path for finding in findings})
    checked = f" ({files_checked} file{'s' if files_checked != 1 else ''} checked)" if files_checked else ""
    return f"Found {len(findings)} {noun} in {files} file{'s' if files != 1 else ''}{checked}."


def render(findings: Sequence[Finding], options) -> str:
    out: list[str] = []
    files: dict[str, tuple[str, ...]] = {}  # each file read once per report, never across reports
    for finding in findings:
        out.append(headline(finding, options.color))
        if options.show_source:
            if finding.path not in files:
                files[finding.path] = source_lines(finding.path)
            out.extend(snippet(finding, options.color, files[finding.path]))
    if findings and options.summary:
        out.append(summary(findings, options.files_checked))
    return "".join(line + "\n" for line in out)
