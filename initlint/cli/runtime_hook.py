"""The `--runtime` front end (`initlint.runtime.cli`), reached by name: a build without it
still runs every static command, and importing it never imports torch."""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

from initlint.config import Settings
from initlint.files import UsageError
from initlint.findings import Finding


def runtime_cli() -> ModuleType | None:
    """`initlint.runtime.cli` when this build has it; it must import without torch."""
    try:
        return importlib.import_module("initlint.runtime.cli")
    except ModuleNotFoundError as error:
        if error.name in ("initlint.runtime", "initlint.runtime.cli"):
            return None
        raise


def check_runtime_table(settings: Settings) -> None:
    """A typo under `[tool.initlint.runtime]` is an error in static runs too, not only with --runtime."""
    table = settings.subtables.get("runtime")
    runtime = runtime_cli() if table else None
    if table and runtime is not None:
        try:
            runtime.runtime_options(argparse.Namespace(), dict(table))
        except UsageError as error:
            raise UsageError(f"{settings.config_path}: {error}") from None


def with_runtime_findings(
    files: list[str], args: argparse.Namespace, settings: Settings, static: list[Finding]
) -> list[Finding]:
    """Runtime verification runs only when asked for (`--runtime`); it needs torch. It returns
    the static findings merged with its own (one finding per writer, `# noqa` for both)."""
    if not getattr(args, "runtime", False):
        return static
    runtime = runtime_cli()
    modules = [name for name in files if name.endswith((".py", ".pyi"))]  # a notebook is no importable module
    if runtime is None or not modules:
        return static
    return list(runtime.run_runtime(modules, args, settings, static))
