"""Jupyter notebooks, checked as ruff checks them: the code cells joined into one module.

IPython syntax (line magics `%x`, shell escapes `!x`, help `x?`, assignments from them, and cells
that start with a cell magic `%%x`) becomes `pass` at the same indentation, so every line keeps
its number and `# noqa` works per cell line. Findings are reported in the cell's own lines
(`nb.ipynb:cell 3:12:5`), and so are their fixes and evidence; `cell N` counts every cell of
the notebook, markdown ones included, as Jupyter shows them. `--fix` edits the cells' sources
and writes the notebook back through nbformat (outputs and metadata kept), atomically and only
when the result still parses.
Needs the `notebook` extra (nbformat).
"""

from __future__ import annotations

import hashlib
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable

from initlint.config import Settings
from initlint.findings import Edit, Evidence, Finding, Fix
from initlint.safety import read_regular_file

NOTEBOOK_SUFFIX = ".ipynb"
_MAGIC = re.compile(r"^\s*(?:[%!?]|[\w.]+\?{1,2}\s*$|[\w.,\s\[\]]+=\s*[%!])")


def is_notebook(path: str) -> bool:
    return str(path).endswith(NOTEBOOK_SUFFIX)


@dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based, among all cells
    index: int  # position in `nb.cells`
    source: str
    first_line: int  # 1-based line of the joined module where the cell starts
    line_count: int


@dataclass(frozen=True)
class Notebook:
    node: object  # nbformat.NotebookNode (None for a notebook an editor sent over LSP)
    cells: tuple[CodeCell, ...]
    source: str  # the code cells joined, IPython syntax replaced

    def cell_at(self, line: int) -> CodeCell | None:
        for cell in self.cells:
            if cell.first_line <= line < cell.first_line + cell.line_count:
                return cell
        return None


class NotebookError(Exception):
    """Not a notebook nbformat can read: one INI901 for the file."""


def _lines(source: str) -> list[str]:
    """Split as the engine and `# noqa` do (\n, \r\n, \r only), endings dropped."""
    from initlint.sourcetext import physical_lines

    return [line.rstrip("\r\n") for line in physical_lines(source)]


class _Scanner:
    """Just enough of Python's lexer to tell where a statement starts: bracket depth, strings
    (triple-quoted ones span lines) and backslash continuations. A `%` that continues a bracketed
    expression on its own line, or a `!` at the start of a docstring's line, is Python."""

    def __init__(self) -> None:
        self.depth, self.continued = 0, False
        self.quote: str | None = None  # the open string's delimiter

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        index = 0
        while index < len(line):
            if self.quote is not None:
                if line.startswith("\\", index):
                    index += 2
                    continue
                if line.startswith(self.quote, index):
                    index, self.quote = index + len(self.quote), None
                    continue
                index += 1
                continue
            char = line[index]
            if char == "#":
                break
            if char in "\"'":
                self.quote = char * 3 if line.startswith(char * 3, index) else char
                index += len(self.quote)
                continue
            self.depth = max(self.depth + (char in "([{") - (char in ")]}"), 0)
            index += 1
        if self.quote is not None and len(self.quote) == 1:
            self.quote = None  # an unterminated one-line string ends with its line
        self.continued = line.rstrip().endswith("\\") and self.quote is None


def _python_lines(source: str) -> list[str]:
    lines = _lines(source) or [""]
    if lines[0].lstrip().startswith("%%"):  # a cell magic: the whole cell is not Python
        return [""] * len(lines)
    scanner, python = _Scanner(), []
    for line in lines:
        if scanner.at_statement_start() and _MAGIC.match(line):
            python.append(line[: len(line) - len(line.lstrip())] + "pass")
            continue
        scanner.feed(line)
        python.append(line)
    return python


def _cell_source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def parse_notebook(data: bytes) -> Notebook:
    import nbformat

    try:
        with warnings.catch_warnings():
            # nbformat warns on stderr about what it repairs itself (cells without ids): not
            # the user's concern here, and not one line per finding.
            warnings.simplefilter("ignore")
            node = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
        cells = node["cells"]
    except Exception as error:  # nbformat raises many kinds for JSON and schema problems
        raise NotebookError(
            f"cannot read notebook: {type(error).__name__}: {' '.join(str(error).split())[:200]}"
        ) from None
    return join_code_cells(node, [_cell_source(cell) if cell.get("cell_type") == "code" else None for cell in cells])


def join_code_cells(node: object, sources: Iterable[str | None]) -> Notebook:
    """The notebook whose cells have these sources, in order (None for a markdown or raw cell):
    its code cells joined into one module, IPython syntax replaced. A file read by nbformat and
    a notebook an editor sends over LSP are joined the same way."""
    code, lines, next_line = [], [], 1
    for index, source in enumerate(sources):
        if source is None:
            continue
        python = _python_lines(source)
        code.append(CodeCell(index + 1, index, source, next_line, len(python)))
        lines.extend(python)
        next_line += len(python)
    return Notebook(node, tuple(code), "".join(line + "\n" for line in lines))


def cell_lines(path: str, number: int) -> tuple[str, ...]:
    """The lines of cell `number` as written (for the text reporter's snippet)."""
    try:
        notebook = parse_notebook(read_regular_file(path))
    except (OSError, NotebookError):
        return ()
    for cell in notebook.cells:
        if cell.number == number:
            return tuple(_lines(cell.source))
    return ()


# --- findings: joined-module positions -> cell positions ----------------------------------


def _in_cell(notebook: Notebook, line: int) -> tuple[int | None, int]:
    cell = notebook.cell_at(line)
    return (None, line) if cell is None else (cell.number, line - cell.first_line + 1)


def _evidence_in_cells(notebook: Notebook, steps: Iterable[Evidence]) -> tuple[Evidence, ...]:
    mapped = []
    for step in steps:
        if step.path is None:
            cell, line = _in_cell(notebook, step.line)
            step = replace(step, line=line, cell=cell)
        mapped.append(step)
    return tuple(mapped)


def _fix_in_cell(notebook: Notebook, fix: Fix | None, cell: CodeCell | None) -> Fix | None:
    """The fix in `cell`'s lines, like the finding; None (not offered) if it reaches outside."""
    if fix is None or cell is None:
        return None
    if any(notebook.cell_at(e.line) is not cell or notebook.cell_at(e.end_line) is not cell for e in fix.edits):
        return None
    offset = cell.first_line - 1
    return replace(fix, edits=tuple(replace(e, line=e.line - offset, end_line=e.end_line - offset) for e in fix.edits))


def to_cells(notebook: Notebook, finding: Finding) -> Finding:
    """The finding, its fix and its evidence in the lines of the cell it is in."""
    cell, line = _in_cell(notebook, finding.line)
    end_line = finding.end_line - (finding.line - line)
    if notebook.cell_at(finding.end_line) is not notebook.cell_at(finding.line):
        end_line, end_column = line, finding.column
    else:
        end_column = finding.end_column
    return replace(
        finding,
        line=line,
        end_line=end_line,
        end_column=end_column,
        cell=cell,
        evidence=_evidence_in_cells(notebook, finding.evidence),
        fix=_fix_in_cell(notebook, finding.fix, notebook.cell_at(finding.line)),
    )


def lint_notebook(path: str, settings: Settings | None = None) -> list[Finding]:
    from initlint.engine import lint_source, tool_finding, with_source_digest

    try:
        data = read_regular_file(path)
        notebook = parse_notebook(data)
    except OSError as error:
        return [tool_finding("INI901", path, f"cannot read: {error.strerror or error}")]
    except NotebookError as error:
        return [tool_finding("INI901", path, str(error))]
    findings = lint_source(notebook.source, path, settings)
    return with_source_digest([to_cells(notebook, finding) for finding in findings], data)


def lint_path(path: str, settings: Settings | None = None) -> list[Finding]:
    """`engine.lint_file` for Python files, `lint_notebook` for notebooks (the CLI's `lint_one`)."""
    from initlint.engine import lint_file

    return lint_notebook(path, settings) if is_notebook(path) else lint_file(path, settings)


# --- fixes ------------------------------------------------------------------------------


def _edits_by_cell(notebook: Notebook, findings: list[Finding]) -> dict[int, list[Edit]]:
    """Each finding's fix edits (already in its cell's lines), by position of the cell."""
    from initlint.fixes import _overlapping, _Refused

    index_of = {cell.number: cell.index for cell in notebook.cells}
    by_cell: dict[int, list[Edit]] = {}
    for finding in findings:
        if finding.fix is None:
            continue
        if finding.cell not in index_of:
            raise _Refused(f"cell {finding.cell} is not a code cell of this notebook")
        by_cell.setdefault(index_of[finding.cell], []).extend(finding.fix.edits)
    for edits in by_cell.values():
        edits.sort(key=lambda e: (e.line, e.column, e.end_line, e.end_column))
        if _overlapping(edits):
            raise _Refused("two fixes overlap in one cell; fix them one run at a time")
    return by_cell


def fixed_notebook(path: str, findings: list[Finding]) -> tuple[bytes, bytes, Notebook, Notebook]:
    """(old bytes, new bytes, old, new) after applying the findings' fixes; `_Refused` when
    that is not safe."""
    import nbformat

    from initlint import guard
    from initlint.engine import UnparseableSource, parse
    from initlint.fixes import _apply, _Refused

    original = read_regular_file(path)
    if {finding.fix.source_sha256 for finding in findings if finding.fix} != {hashlib.sha256(original).hexdigest()}:
        raise _Refused("the notebook changed since it was linted")
    notebook = parse_notebook(original)
    by_cell = _edits_by_cell(notebook, findings)
    node = nbformat.from_dict(notebook.node)
    for cell in notebook.cells:
        if cell.index in by_cell:
            node.cells[cell.index].source = _apply(cell.source, by_cell[cell.index])
    new = nbformat.writes(node).encode("utf-8") + b"\n"
    fixed = parse_notebook(new)
    try:
        guard.run_bounded(lambda: parse(fixed.source))
    except UnparseableSource as error:
        raise _Refused(f"the fixed notebook would not parse ({error.reason})") from None
    return original, new, notebook, fixed


def apply_notebook_fixes(findings: Iterable[Finding], unsafe: bool = False, write: bool = True):
    """Like `fixes.apply_fixes` for notebooks: (FixReport, previews), where previews lists
    (path, old, new) code cells for `--diff`; with `write=False` nothing is written."""
    from initlint.fixes import FixReport, _Planned, _Refused, _write_all

    report = FixReport()
    previews: list[tuple[str, str, str]] = []
    plans = []
    for path, fixable in _fixable_by_path(findings, unsafe).items():
        try:
            original, new, before, after = fixed_notebook(path, fixable)
        except _Refused as refusal:
            report.skipped.append((path, str(refusal)))
            continue
        plans.append((path, _Planned(Path(path).resolve(), original, new, len(fixable))))
        previews.append((path, _cells_text(before), _cells_text(after)))
    if write:
        try:
            _write_all([plan for _, plan in plans])
        except (OSError, _Refused) as error:
            report.error = f"nothing was changed: {error}"
            return report, previews
    report.fixed.update({path: plan.applied for path, plan in plans})
    return report, previews


def _fixable_by_path(findings: Iterable[Finding], unsafe: bool) -> dict[str, list[Finding]]:
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.fix is not None and (finding.fix.safe or unsafe) and is_notebook(finding.path):
            by_path.setdefault(finding.path, []).append(finding)
    return by_path


def _cells_text(notebook: Notebook) -> str:
    """The code cells as a diff shows them: a `# cell N` line above each."""
    return "".join(f"# cell {cell.number}\n{cell.source.rstrip(chr(10))}\n" for cell in notebook.cells)
