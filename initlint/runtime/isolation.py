"""The user's code runs only in a child process with a time and a memory limit; this is the
parent's side.

`run_isolated` starts `python -m initlint.runtime.child SPEC RESULT` (`child.py`) in a new
session, in a private temporary folder as its working directory, with a trimmed environment
(`child_environment`: no tokens, keys or other variables the build does not need), stdout
discarded and stderr drained by a thread (so output spam can neither block the child nor
reach the user). It waits up to the time limit, then kills the child and every process it
started, setsid daemons included (`process_tree.kill_tree`). Whatever happens in the model's
code (a crash, a hang, `sys.exit`, an import error, running out of memory) comes back as one
line in `ChildResult.error`; the child's report is checked against its schema before it is
believed (`report_schema.validated_payload`), so a model that replaces `json.dump` cannot
crash the parent.

What this is not: a sandbox. The model's code runs as the user, with the user's file system
and network; see docs/robustness.md.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from initlint.runtime.child import PROGRESS_MARKER
from initlint.runtime.process_tree import kill_tree
from initlint.runtime.report_schema import validated_payload

#: Default memory limit: this share of physical memory.
MEMORY_SHARE = 0.75
_TAIL_LINES = 20
#: Environment variables the child keeps (everything else, credentials first, stays behind).
_KEPT_VARIABLES = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        "SYSTEMROOT",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONHASHSEED",
        "VIRTUAL_ENV",
        "LD_LIBRARY_PATH",
        "DYLD_LIBRARY_PATH",
        "XDG_CACHE_HOME",
        "SSL_CERT_FILE",
    }
)
_KEPT_PREFIXES = (
    "LC_",
    "CUDA",
    "NVIDIA_",
    "HIP_",
    "ROCM",
    "TORCH",
    "PYTORCH_",
    "OMP_",
    "MKL_",
    "KMP_",
    "HF_",
    "TRANSFORMERS_",
)
_SECRET = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|(^|_)KEY($|_)|AUTH", re.IGNORECASE)


@dataclass
class ChildResult:
    report: dict[str, Any] | None
    error: str | None
    seconds: float


def default_memory_limit_mb() -> int | None:
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return int(pages * page_size * MEMORY_SHARE / 2**20)


def run_isolated(
    spec: dict[str, Any],
    timeout: float,
    memory_limit_mb: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> ChildResult:
    """Run the runtime pipeline for `spec` in a child process; never raises for the child's faults."""
    spec = dict(_absolute_paths(spec), memory_limit_mb=memory_limit_mb, progress=progress is not None, cwd=os.getcwd())
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="initlint-runtime-") as folder:
        spec_path, result_path = os.path.join(folder, "spec.json"), os.path.join(folder, "result.json")
        with open(spec_path, "w", encoding="utf-8") as handle:
            json.dump(spec, handle)
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", "initlint.runtime.child", spec_path, result_path],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=child_environment(),
                cwd=folder,
            )
        except OSError as error:
            return ChildResult(None, f"cannot start the runtime check: {error}", 0.0)
        tail: list[str] = []
        reader = threading.Thread(target=_drain, args=(child.stderr, tail, progress), daemon=True)
        reader.start()
        timed_out = False
        try:
            child.wait(timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:  # also on Ctrl-C and SIGTERM: nothing the model started survives initlint
            kill_tree(child)
            reader.join(2)
        seconds = time.monotonic() - start
        if timed_out:
            return ChildResult(
                None, f"timed out after {timeout:g} s (raise --timeout, or pass a smaller --config)", seconds
            )
        result = _read_result(result_path)
        if result is not None:
            report, failure = validated_payload(result)
            return ChildResult(report, failure, seconds)
        return ChildResult(None, _describe_exit(child.returncode, tail, memory_limit_mb), seconds)


def _absolute_paths(spec: dict[str, Any]) -> dict[str, Any]:
    """The child works in its own folder, and the model may `os.chdir`: no relative paths."""
    spec = dict(spec)
    if spec.get("file"):
        spec["file"] = os.path.abspath(spec["file"])
    factory = spec.get("factory")
    if factory:
        target, sep, attribute = factory.rpartition(":")
        if sep and (target.endswith(".py") or os.sep in target or os.path.exists(target)):
            spec["factory"] = f"{os.path.abspath(target)}:{attribute}"
    return spec


def child_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables a model build needs (paths, locale, torch/CUDA/HF settings), without
    anything that looks like a credential."""
    environ = dict(os.environ if environ is None else environ)
    kept = {
        name: value
        for name, value in environ.items()
        if (name in _KEPT_VARIABLES or name.startswith(_KEPT_PREFIXES)) and not _SECRET.search(name)
    }
    kept.update(PYTHONUNBUFFERED="1", OMP_NUM_THREADS=environ.get("OMP_NUM_THREADS", "1"))
    return kept


def _drain(stream, tail: list[str], progress) -> None:
    """Read the child's stderr to the end: progress lines forwarded, the last few lines kept."""
    pending = b""
    while True:
        chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
        if not chunk:
            break
        pending += chunk
        lines = pending.split(b"\n")
        pending = lines.pop()[-65536:]  # an endless line without newline stays bounded
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if line.startswith(PROGRESS_MARKER):
                if progress is not None:
                    progress(line[len(PROGRESS_MARKER) :])
            elif line.strip():
                tail.append(line[:500])
                del tail[:-_TAIL_LINES]


def _read_result(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError, RecursionError):
        return None


def _describe_exit(code: int | None, tail: list[str], memory_limit_mb: int | None) -> str:
    last = next((line.strip() for line in reversed(tail) if "Error" in line or "error" in line), "")
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the model code crashed with {name}{hint}" + (f": {last}" if last else "")
    return f"the model code ended the process (exit status {code}) before the check finished" + (
        f": {last}" if last else ""
    )
