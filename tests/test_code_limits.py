"""Every function of the package fits on a screen: at most 50 lines, docstring excluded; every
module owns one topic: at most 700 lines. (Complexity, the other limit, is ruff's C901 with
max-complexity 15 in pyproject.toml.)"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "initlint"
MAX_LINES = 50
#: A module past this has grown a second topic: split it by topic, as `residual.py` became
#: `forward_statements.py`, `forward_expressions.py` and `forward_calls.py`.
MAX_MODULE_LINES = 700

#: Functions over the limit when the check was introduced, with the length they may not
#: exceed; their owners split them (a dispatch table may stay, with a comment saying so).
BACKLOG: dict[tuple[str, str], int] = {}


def function_lengths(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function, nested ones included; the length runs
    from the `def` line (decorators excluded) to the last line, minus the docstring."""
    lengths = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                length -= (first.end_lineno or first.lineno) - first.lineno + 1
            lengths.append((node.name, node.lineno, length))
    return lengths


def test_no_function_is_longer_than_the_limit():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        for name, line, length in function_lengths(path.read_text(encoding="utf-8")):
            allowed = BACKLOG.get((relative, name), MAX_LINES)
            if length > allowed:
                too_long.append(f"initlint/{relative}:{line} {name}: {length} lines (limit {allowed})")
    assert not too_long, "functions over the limit:\n" + "\n".join(too_long)


def test_lengths_count_code_not_the_docstring():
    source = 'def f():\n    """Doc\n    string."""\n    a = 1\n    return a\n\n\ndef g():\n    def h():\n        pass\n    return h\n'
    assert function_lengths(source) == [("f", 1, 3), ("g", 8, 4), ("h", 9, 2)]


def test_no_module_is_longer_than_the_limit():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        length = len(path.read_text(encoding="utf-8").splitlines())
        if length > MAX_MODULE_LINES:
            too_long.append(f"initlint/{path.relative_to(PACKAGE).as_posix()}: {length} lines")
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines (split them by topic):\n" + "\n".join(too_long)
