"""Which files a run checks: the paths given, folders walked recursively."""

from __future__ import annotations

import fnmatch
import os
import sys
from pathlib import Path
from typing import Iterator

SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "build", "dist", "__pycache__",
        ".tox", ".nox", ".eggs", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache",
        "site-packages", ".ipynb_checkpoints",
    }
)


# Defined in the leaf `errors` module (config and the runtime raise it too); imported here,
# where callers on other branches still look for it.
from initlint.errors import UsageError  # noqa: E402


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    text = path.as_posix()
    return any(fnmatch.fnmatch(text, pat) or fnmatch.fnmatch(path.name, pat) or fnmatch.fnmatch(text, f"*/{pat}") for pat in patterns)


def _unreadable_folder(top: str):
    """os.walk's error handler: the folder named on the command line is a UsageError, a folder
    below it a warning (its files are not checked, and the user is told so)."""

    def report(error: OSError) -> None:
        reason = error.strerror or str(error)
        if os.path.abspath(error.filename or top) == os.path.abspath(top):
            raise UsageError(f"{top}: cannot read folder: {reason}")
        print(f"initlint: warning: {error.filename}: cannot read folder ({reason}); its files are not checked", file=sys.stderr)

    return report


def discover(paths: list[str], exclude: tuple[str, ...] = ()) -> Iterator[str]:
    """Yield the Python files under `paths` in a stable order; a missing path is a UsageError."""
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise UsageError(f"{raw}: no such file or directory")
        if not path.is_dir():  # a FIFO or device named here too: the engine says what it is
            # A file named explicitly is checked even when it matches an exclude pattern
            # only by its folder; an explicitly excluded name is honoured.
            if not _excluded(path, exclude):
                yield raw
            continue
        for root, dirs, files in os.walk(path, onerror=_unreadable_folder(raw)):
            root_path = Path(root)
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info") and not _excluded(root_path / d, exclude))
            for name in sorted(files):
                if name.endswith((".py", ".pyi")) and not _excluded(root_path / name, exclude):
                    yield str(root_path / name)
