"""Which files a run checks: the paths given, folders walked recursively, excludes as ruff has them.

Each folder and file is judged by the settings that govern it (the nearest `[tool.initlint]`):
`exclude` replaces `DEFAULT_EXCLUDE`, `extend-exclude` adds to it. A file named on the command
line is checked whatever the excludes say, unless `force-exclude` is set (pre-commit names files).
"""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable, Iterator, Protocol


#: Folders skipped unless `exclude` (which replaces this list) says otherwise.
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "env",
    ".env",
    "build",
    "dist",
    "__pycache__",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    ".ipynb_checkpoints",
)
PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
STDIN = "-"


# Defined in the leaf `errors` module (config and the runtime raise it too); imported here,
# where callers on other branches still look for it.
from initlint.errors import UsageError  # noqa: E402


def _excluded(path: Path, patterns: tuple[str, ...]) -> bool:
    text = path.as_posix()
    return any(
        fnmatch.fnmatch(text, pat) or fnmatch.fnmatch(path.name, pat) or fnmatch.fnmatch(text, f"*/{pat}")
        for pat in patterns
    )


def _unreadable_folder(top: str):
    """os.walk's error handler: the folder named on the command line is a UsageError, a folder
    below it a warning (its files are not checked, and the user is told so)."""

    def report(error: OSError) -> None:
        reason = error.strerror or str(error)
        if os.path.abspath(error.filename or top) == os.path.abspath(top):
            raise UsageError(f"{top}: cannot read folder: {reason}")
        print(
            f"initlint: warning: {error.filename}: cannot read folder ({reason}); its files are not checked",
            file=sys.stderr,
        )

    return report


def force_excluded(path: str, settings: Selection) -> bool:
    """Is a file named on the command line excluded, by its name or by a folder above it?

    Only folders inside the project (the config's folder, else the working directory) count:
    a checkout under `~/env/` is not excluded by the default `env` pattern."""
    absolute = Path(os.path.abspath(path))
    patterns = settings.excludes()
    for base in (settings.root, os.curdir):
        try:
            relative = absolute.relative_to(os.path.abspath(base or os.curdir))
        except ValueError:
            continue
        parts = relative.parts
        return any(_excluded(Path(*parts[:end]), patterns) for end in range(1, len(parts) + 1))
    return _excluded(Path(absolute.name), patterns)


def notebooks_supported() -> bool:
    """Notebooks need the `notebook` extra (nbformat); without it folders skip them."""
    return importlib.util.find_spec("nbformat") is not None


class Selection(Protocol):
    """What file selection reads of `config.Settings` (this module sits below config)."""

    @property
    def force_exclude(self) -> bool: ...

    @property
    def root(self) -> str: ...

    def excludes(self) -> tuple[str, ...]: ...


class _NoSettings:
    """The file selection of a run without configuration, as `config.Settings()` has it (this
    module sits below config and must not import it)."""

    force_exclude = False
    root = ""

    def excludes(self) -> tuple[str, ...]:
        return DEFAULT_EXCLUDE


_NO_SETTINGS = _NoSettings()


def _wanted(name: str, notebooks: bool) -> bool:
    return name.endswith(PYTHON_SUFFIXES) or (notebooks and name.endswith(NOTEBOOK_SUFFIX))


def discover(paths: list[str], settings_for: Callable[[str], Selection] | None = None) -> Iterator[str]:
    """Yield the files under `paths` in a stable order; a missing path is a UsageError.

    `settings_for(path)` gives the settings governing a file or folder (default: none)."""
    selection: Callable[[str], Selection] = settings_for or (lambda _path: _NO_SETTINGS)
    notebooks = notebooks_supported()
    for raw in paths:
        path = Path(raw)
        if raw == STDIN:
            yield raw
            continue
        if not path.exists():
            raise UsageError(f"{raw}: no such file or directory")
        if not path.is_dir():  # a FIFO or device named here too: the engine says what it is
            settings = selection(raw)
            if settings.force_exclude and force_excluded(raw, settings):
                continue
            if raw.endswith(NOTEBOOK_SUFFIX) and not notebooks:
                raise UsageError(f"{raw}: checking notebooks needs nbformat: pip install 'initlint[notebook]'")
            yield raw
            continue
        yield from _walk(path, selection, notebooks)


def _walk(top: Path, settings_for: Callable[[str], Selection], notebooks: bool) -> Iterator[str]:
    for root, dirs, files in os.walk(top, onerror=_unreadable_folder(str(top))):
        root_path = Path(root)
        patterns = settings_for(root).excludes()
        dirs[:] = sorted(d for d in dirs if not _excluded(root_path / d, patterns))
        for name in sorted(files):
            if _wanted(name, notebooks) and not _excluded(root_path / name, patterns):
                yield str(root_path / name)
