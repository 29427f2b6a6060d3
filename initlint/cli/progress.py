"""A progress bar on stderr for long runs: rich's when it is installed, a plain counter otherwise."""

from __future__ import annotations

import argparse
import sys

#: Fewer files than this finish before a progress bar would help.
PROGRESS_MIN_FILES = 50


def progress_bar(total: int, args: argparse.Namespace):
    """A progress bar on stderr for long runs: only on a terminal, only for text output."""
    from contextlib import nullcontext

    wanted = total >= PROGRESS_MIN_FILES and args.format == "text" and not args.quiet and sys.stderr.isatty()
    if not wanted:
        return nullcontext(None)
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:
        return _PlainProgress(total)
    return _RichProgress(Progress(transient=True, console=Console(stderr=True)), total)


class _PlainProgress:
    """`checked 120/2500 files` rewritten in place, when rich is not installed."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0

    def __enter__(self):
        return self.advance

    def advance(self) -> None:
        self.done += 1
        if self.done % 10 == 0 or self.done == self.total:
            sys.stderr.write(f"\rinitlint: checked {self.done}/{self.total} files")
            sys.stderr.flush()

    def __exit__(self, *exc) -> None:
        sys.stderr.write("\r\033[K")


class _RichProgress:
    def __init__(self, progress, total: int) -> None:
        self.progress, self.total = progress, total

    def __enter__(self):
        self.progress.__enter__()
        task = self.progress.add_task("checking", total=self.total)
        return lambda: self.progress.advance(task)

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)
