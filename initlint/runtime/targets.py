"""What a runtime check builds: the checked files that define models, and whether `--model` and
`--factory` name something that exists.

Read from the source text only: the parent process never imports the user's code.
"""

from __future__ import annotations

import os
import sys
from typing import Iterator, Sequence

from initlint.errors import UsageError
from initlint.runtime.options import Options
from initlint.safety import read_regular_file

_MODEL_MARKERS = ("nn.Module", "Module)", "PreTrainedModel", "Module,")


def model_files(files: Sequence[str], model: str | None) -> list[str]:
    """The checked files that define an nn.Module (and the class `model`, when given)."""
    found = []
    for path in files:
        try:
            text = read_regular_file(path).decode("utf-8", "replace")
        except OSError:
            continue
        if "class " in text and any(marker in text for marker in _MODEL_MARKERS):
            if model is None or f"class {model}" in text:
                found.append(path)
    return found


def check_targets(files: Sequence[str], options: Options) -> None:
    """`--model` and `--factory` name things that exist, else one UsageError naming what does
    (read from the source text: the parent process never imports the user's code)."""
    if options.factory:
        _check_factory(options.factory)
    elif options.model:
        defined = {name: path for path in model_files(files, None) for name in top_level_names(path)}
        if options.model not in defined:
            classes = sorted(name for name in defined if name[:1].isupper())
            raise UsageError(
                f"--model {options.model}: no class or factory of that name in the checked files "
                f"(model classes found: {', '.join(classes) or 'none'})"
            )


def _check_factory(spec: str) -> None:
    target, sep, attribute = spec.rpartition(":")
    if not sep or not target or not attribute:
        raise UsageError(f"--factory {spec!r}: expected FILE.py:CALLABLE or PKG.MODULE:CALLABLE")
    path = target if target.endswith(".py") or os.sep in target else module_file(target)
    if path is None:
        raise UsageError(f"--factory {spec!r}: no module {target} in the current folder or on sys.path")
    if not os.path.isfile(path):
        folder = os.path.dirname(path) or "."
        here = sorted(name for name in os.listdir(folder) if name.endswith(".py")) if os.path.isdir(folder) else []
        raise UsageError(
            f"--factory {spec!r}: no such file {path} (Python files in {folder}: {', '.join(here) or 'none'})"
        )
    names = top_level_names(path)
    head = attribute.split(".")[0]
    if head not in names:
        callables = sorted(name for name, kind in names.items() if kind != "name")
        raise UsageError(
            f"--factory {spec!r}: {path} defines no {head} (it defines: {', '.join(callables) or 'nothing callable'})"
        )


def _module_level(body: list) -> Iterator:
    """Statements that run at import time: the module's, and those under `if`/`try`/`with`."""
    import ast

    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (
                node.body,
                getattr(node, "orelse", []),
                getattr(node, "finalbody", []),
                *(handler.body for handler in getattr(node, "handlers", [])),
            ):
                yield from _module_level(block)


def module_file(dotted: str) -> str | None:
    """The file of `pkg.module` without importing it: the current folder, then sys.path."""
    parts = dotted.split(".")
    for folder in [os.getcwd(), *sys.path]:
        base = os.path.join(folder or ".", *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def top_level_names(path: str) -> dict[str, str]:
    """Names a module defines at its top level: `class`, `def` or `name` (assignments, imports)."""
    import ast

    try:
        tree = ast.parse(read_regular_file(path).decode("utf-8", "replace"))
    except (OSError, SyntaxError, ValueError):
        return {}
    names: dict[str, str] = {}
    for node in _module_level(tree.body):
        if isinstance(node, ast.ClassDef):
            names[node.name] = "class"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = "def"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name.split(".")[0], "name") for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update((t.id, "name") for t in targets if isinstance(t, ast.Name))
    return names
