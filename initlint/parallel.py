"""Checking files in worker processes (`--jobs N`) with results identical to one process.

Files are cut into contiguous chunks in the caller's order and the per-file results come
back in that same order, so the output cannot depend on which worker finished first.

The workers are plain `python -I -c ...` child processes talking pickles over their stdin and
stdout, not `multiprocessing` ones, because a checked repository is hostile ground:

* a spawned `multiprocessing` worker (and its resource tracker) starts with the working
  directory first on `sys.path` and imports `signal`, `pickle`, `socket`, ... before any of our
  code runs, so a `signal.py` in the checked folder would run in every worker. Here `-I` keeps
  the working directory (and PYTHONPATH) off the start-up path, the child starts in an empty
  private folder, and it only returns to the caller's folder once its `sys.path` is the
  caller's, minus the working directory (`safety.clean_sys_path`);
* a worker must not outlive its caller: it exits when its stdin closes, and a watcher thread
  ends it when its parent process is gone (SIGKILL, a CI timeout), even mid-file.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import platform
import selectors
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any, Callable, Iterator, Sequence

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
#: How often a worker looks whether its parent is still there.
PARENT_POLL_S = 0.25
_HEADER = struct.Struct("!Q")
_READY = "ready"
_BOOT = "import sys\nsys.path[:] = sys.argv[1:]\nfrom initlint.parallel import worker_main\nworker_main()\n"


def worker_count(jobs: int, files: int) -> int:
    """`jobs`, but never more processes than files or than CPUs this process may use."""
    if os.name == "nt":  # pipes cannot be polled there (select takes sockets only)
        return 1
    return max(1, min(jobs, files, usable_cpus()))


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


#: CPython's collector thresholds during a run (generation 0 counts allocations, the others
#: collections of the generation below); mypy, a batch tool that holds its trees too, uses these.
BATCH_GC_THRESHOLDS = (200_000, 30, 30)


@contextlib.contextmanager
def collecting_less() -> Iterator[None]:
    """Run a batch of files with the garbage collector running less often, then restore it.

    A run keeps every file its projects parsed alive (shared between the files that reach
    them); with the default thresholds the collector walked that growing heap again and again,
    a quarter of a whole-project check of litgpt. Thresholds the process already raised stay.

    What the batch leaves alive is mostly its projects' snapshot (kept for the next files to
    ask), long-lived by construction: it is handed straight to the oldest generation
    (`freeze`, then `unfreeze`, as mypy does with its cache). With the old thresholds back, the
    young generations' counts would otherwise start a collection of the whole batch's heap on
    the next allocation, which finds nothing to free (2 s of torchtitan's 28 s check). A cycle
    the batch left as garbage waits for the next full collection instead."""
    if platform.python_implementation() != "CPython":
        yield
        return
    saved = gc.get_threshold()
    gc.set_threshold(*(max(mine, theirs) for mine, theirs in zip(BATCH_GC_THRESHOLDS, saved)))
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        gc.set_threshold(*saved)


def map_files(lint_file: LintFile, names: Sequence[str], settings: Settings, jobs: int = 1) -> Iterator[list[Finding]]:
    """`lint_file(name, settings)` for every name, in order, in up to `jobs` processes."""
    workers = worker_count(jobs, len(names))
    try:
        setup = pickle.dumps((lint_file, settings, os.getcwd()))
    except (pickle.PicklingError, TypeError, AttributeError, OSError):
        workers = 1  # nothing to send to a worker: check everything here
    if workers <= 1:
        with collecting_less():
            for name in names:
                yield lint_file(name, settings)
        return
    size = max(1, min(MAX_CHUNK, len(names) // (workers * CHUNKS_PER_WORKER)))
    chunks = [list(names[start : start + size]) for start in range(0, len(names), size)]
    try:
        pool = _Pool(workers, setup)
    except OSError:  # no process to be had, or none could import initlint: check here
        yield from (lint_file(name, settings) for name in names)
        return
    with pool:
        for chunk, results in zip(chunks, pool.results(chunks)):
            for name, findings in zip(chunk, results):
                if isinstance(findings, str) and findings != REDO:
                    yield _failed(name, findings)
                else:
                    yield _unpickle_or_redo(findings, lint_file, name, settings)


class _Pool:
    """Worker processes fed one chunk at a time; results handed back in chunk order."""

    def __init__(self, workers: int, setup: bytes) -> None:
        from initlint.safety import clean_sys_path

        self.folder = tempfile.mkdtemp(prefix="initlint-worker-")
        self.processes: list[subprocess.Popen] = []
        command = [sys.executable, "-I", "-c", _BOOT, *clean_sys_path(sys.path)]
        try:
            for _ in range(workers):
                process = subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    cwd=self.folder,
                    close_fds=True,
                )
                self.processes.append(process)
                _send(process.stdin, setup)
            self.processes = [process for process in self.processes if self._ready(process)]
            if not self.processes:
                raise OSError("no worker process could start")
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _ready(process: subprocess.Popen) -> bool:
        """Whether the worker imported initlint and read its setup (else it is stopped): an
        installation the workers cannot import from falls back to checking in this process."""
        try:
            ready = pickle.loads(_receive(process.stdout)) == _READY
        except (EOFError, OSError, pickle.UnpicklingError, ValueError, TypeError):
            ready = False
        if not ready:
            _stop(process, grace_s=0)
        return ready

    def __enter__(self) -> "_Pool":
        return self

    def __exit__(self, error_type: Any, *_: Any) -> None:
        # Interrupted (Ctrl-C, SIGTERM): no grace for workers still busy.
        self.close(grace_s=2.0 if error_type is None else 0.0)

    def results(self, chunks: list[list[str]]) -> Iterator[list]:
        """Each chunk's per-file results, in chunk order; a chunk whose worker died gets its reason."""
        done: dict[int, list] = {}
        pending = list(range(len(chunks)))
        busy: dict[subprocess.Popen, int] = {}
        selector = selectors.DefaultSelector()
        for process in self.processes:
            selector.register(_pipe(process.stdout), selectors.EVENT_READ, process)
        for index in range(len(chunks)):
            while index not in done:
                self._feed(selector, busy, pending, chunks, done)
                if index in done:
                    break
                for key, _ in selector.select():
                    self._collect(selector, key.data, busy, chunks, done)
            yield done.pop(index)

    def _feed(self, selector, busy: dict, pending: list[int], chunks: list[list[str]], done: dict) -> None:
        idle = [process for process in self.processes if process not in busy and process.returncode is None]
        for process in idle:
            if not pending:
                return
            index = pending.pop(0)
            try:
                _send(process.stdin, pickle.dumps((index, chunks[index])))
                busy[process] = index
            except OSError:  # it died between two chunks: the chunk goes to another worker
                pending.insert(0, index)
                self._retire(selector, process)
        if pending and not busy:  # every worker is gone
            for index in pending:
                done[index] = ["the worker processes died"] * len(chunks[index])
            pending.clear()

    def _collect(self, selector, process: subprocess.Popen, busy: dict, chunks: list[list[str]], done: dict) -> None:
        index = busy.pop(process, None)
        try:
            answer_index, results = pickle.loads(_receive(process.stdout))
        except (EOFError, OSError, pickle.UnpicklingError, ValueError, TypeError):
            self._retire(selector, process)
            if index is not None:
                done[index] = ["the worker process checking it died"] * len(chunks[index])
            return
        done[answer_index] = results

    def _retire(self, selector, process: subprocess.Popen) -> None:
        try:
            selector.unregister(process.stdout)
        except (KeyError, ValueError):
            pass
        _stop(process, grace_s=0)

    def close(self, grace_s: float = 0.0) -> None:
        for process in self.processes:
            try:
                _pipe(process.stdin).close()  # end of input: an idle worker exits on its own
            except OSError:
                pass
        deadline = time.monotonic() + grace_s
        for process in self.processes:
            _stop(process, grace_s=max(0.0, deadline - time.monotonic()))
        shutil.rmtree(self.folder, ignore_errors=True)


def _stop(process: subprocess.Popen, grace_s: float) -> None:
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for stream in (process.stdin, process.stdout):
        try:
            _pipe(stream).close()
        except OSError:
            pass


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    if stream is None:  # never: every worker is started with both pipes
        raise OSError("no pipe to the worker process")
    return stream


def _send(stream: IO[bytes] | None, payload: bytes) -> None:
    stream = _pipe(stream)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def _receive(stream: IO[bytes] | None) -> bytes:
    stream = _pipe(stream)
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(header)
    payload = stream.read(size)
    if len(payload) < size:
        raise EOFError
    return payload


# -- the worker --------------------------------------------------------------------------------


def worker_main() -> None:
    """Runs in a worker: read the setup, then chunks until stdin closes; answer on the saved stdout."""
    answers = os.fdopen(os.dup(1), "wb")
    # Nothing the analysis prints may corrupt the answers.
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    tasks = sys.stdin.buffer
    _watch_parent(os.getppid())
    try:
        lint_file, settings, folder = pickle.loads(_receive(tasks))
        os.chdir(folder)  # safe now: the working directory is no longer on sys.path
    except BaseException:  # the caller checks these files itself
        return
    _send(answers, pickle.dumps(_READY))
    while True:
        try:
            index, chunk = pickle.loads(_receive(tasks))
        except EOFError:
            return
        with collecting_less():
            results = _lint_chunk(lint_file, chunk, settings)
        _send(answers, pickle.dumps((index, results)))


def _watch_parent(parent: int) -> None:
    """End this worker as soon as its parent is gone: it is reparented, its pid changes."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="initlint-parent-watch", daemon=True).start()


def _lint_chunk(lint_file: LintFile, chunk: list[str], settings: Settings) -> list[bytes | str]:
    """Each file's findings pickled on their own, so that one file whose findings cannot cross
    the process boundary is redone in the caller, not lost."""
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
    return [
        tool_finding(INTERNAL_ERROR, name, f"initlint failed on this file ({one_line(reason, 200)}); please report it")
    ]
