"""Checking files in worker processes (`--jobs N`) with results identical to one process.

Files are cut into contiguous chunks in the caller's order and the per-file results come
back in that same order, so the output cannot depend on which worker finished first. Workers
are spawned, not forked: a fork copies whatever threads and locks the caller holds.
"""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator, Sequence

from initlint.codes import INTERNAL_ERROR
from initlint.config import Settings
from initlint.findings import Finding, tool_finding
from initlint.sourcetext import one_line

LintFile = Callable[[str, Settings], list[Finding]]

#: Several chunks per worker keep the workers busy when file sizes differ.
CHUNKS_PER_WORKER = 4
MAX_CHUNK = 32
#: A worker's answer for a file whose findings could not be pickled: the caller redoes it.
REDO = "redo"


def map_files(lint_file: LintFile, names: Sequence[str], settings: Settings, jobs: int = 1) -> Iterator[list[Finding]]:
    """`lint_file(name, settings)` for every name, in order, in up to `jobs` processes."""
    workers = min(max(jobs, 1), len(names))
    if workers <= 1:
        for name in names:
            yield lint_file(name, settings)
        return
    size = max(1, min(MAX_CHUNK, len(names) // (workers * CHUNKS_PER_WORKER)))
    chunks = [list(names[start : start + size]) for start in range(0, len(names), size)]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [pool.submit(_lint_chunk, lint_file, chunk, settings) for chunk in chunks]
        for chunk, future in zip(chunks, futures):
            try:
                results = future.result()
            except BrokenProcessPool:
                results = ["the worker process checking it died"] * len(chunk)
            except Exception as error:  # e.g. settings that cannot be sent to the workers
                results = [f"{type(error).__name__}: {error}"] * len(chunk)
            for name, findings in zip(chunk, results):
                if isinstance(findings, str) and findings != REDO:
                    yield _failed(name, findings)
                else:
                    yield _unpickle_or_redo(findings, lint_file, name, settings)


def _lint_chunk(lint_file: LintFile, chunk: list[str], settings: Settings) -> list[bytes | str]:
    """Runs in a worker: each file's findings pickled on their own, so that one file whose
    findings cannot cross the process boundary is redone in the caller, not lost."""
    results: list[bytes | str] = []
    for name in chunk:
        try:
            results.append(pickle.dumps(lint_file(name, settings)))
        except (pickle.PicklingError, TypeError, AttributeError):
            results.append(REDO)
    return results


def _unpickle_or_redo(result: bytes | str, lint_file: LintFile, name: str, settings: Settings) -> list[Finding]:
    if isinstance(result, bytes):
        return pickle.loads(result)
    return lint_file(name, settings)


def _failed(name: str, reason: str) -> list[Finding]:
    return [tool_finding(INTERNAL_ERROR, name, f"initlint failed on this file ({one_line(reason, 200)}); please report it")]
