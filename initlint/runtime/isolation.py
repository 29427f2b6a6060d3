"""The user's code runs only here: in a child process with a time and a memory limit.

The parent (`run_isolated`) starts `python -m initlint.runtime.isolation SPEC RESULT` in a new
session, with stdout discarded and stderr drained by a thread (so output spam can neither
block the child nor reach the user), waits up to the time limit, then kills the whole
process group. Whatever happens in the model's code (a crash, a hang, `sys.exit`, an import
error, running out of memory) comes back as one line in `ChildResult.error`.

The child limits its own address space (`resource.setrlimit(RLIMIT_AS)`, where the platform
has it) before importing torch, runs the pipeline for every model of the spec, and writes its
report as JSON. Progress lines travel on stderr behind a marker.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

PROGRESS_MARKER = "\x1finitlint-progress:"
#: Default memory limit: this share of physical memory.
MEMORY_SHARE = 0.75
_TAIL_LINES = 20
#: How allocators word running out of memory (torch's CPU allocator, mmap, CUDA).
_OUT_OF_MEMORY = ("can't allocate memory", "cannot allocate memory", "not enough memory", "out of memory")


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


def run_isolated(spec: dict[str, Any], timeout: float, memory_limit_mb: int | None = None,
                 progress: Callable[[str], None] | None = None) -> ChildResult:
    """Run the runtime pipeline for `spec` in a child process; never raises for the child's faults."""
    spec = dict(spec, memory_limit_mb=memory_limit_mb, progress=progress is not None)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="initlint-runtime-") as folder:
        spec_path, result_path = os.path.join(folder, "spec.json"), os.path.join(folder, "result.json")
        with open(spec_path, "w", encoding="utf-8") as handle:
            json.dump(spec, handle)
        env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", "initlint.runtime.isolation", spec_path, result_path],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                start_new_session=True, env=env, cwd=os.getcwd(),
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
        finally:
            _kill_group(child)
            reader.join(2)
        seconds = time.monotonic() - start
        if timed_out:
            return ChildResult(None, f"timed out after {timeout:g} s (raise --timeout, or pass a smaller --config)", seconds)
        result = _read_result(result_path)
        if result is not None:
            return ChildResult(result.get("report"), result.get("error"), seconds)
        return ChildResult(None, _describe_exit(child.returncode, tail, memory_limit_mb), seconds)


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
                    progress(line[len(PROGRESS_MARKER):])
            elif line.strip():
                tail.append(line[:500])
                del tail[:-_TAIL_LINES]


def _kill_group(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError, OSError):
        pass
    try:
        child.wait(5)
    except subprocess.TimeoutExpired:
        pass


def _read_result(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
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
    return f"the model code ended the process (exit status {code}) before the check finished" + (f": {last}" if last else "")


# -- the child ---------------------------------------------------------------------------------

def _limit_memory(limit_mb: int | None) -> None:
    if not limit_mb:
        return
    try:
        import resource

        limit = int(limit_mb) * 2**20
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError, AttributeError):
        pass  # no RLIMIT_AS here (macOS, Windows): the time limit still holds


def _progress(message: str) -> None:
    try:
        os.write(2, f"{PROGRESS_MARKER}{message}\n".encode("utf-8", "replace"))
    except OSError:
        pass


def child_main(spec_path: str, result_path: str) -> None:
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    _limit_memory(spec.get("memory_limit_mb"))
    try:
        payload: dict[str, Any] = {"report": _run_spec(spec), "error": None}
    except BaseException as error:  # noqa: BLE001 -- SystemExit and friends from the model's code too
        payload = {"report": None, "error": describe_failure(error, spec.get("memory_limit_mb"))}
    temporary = result_path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, default=_json_default)
    os.replace(temporary, result_path)


def _json_default(value: Any) -> Any:
    return str(value)


def describe_failure(error: BaseException, memory_limit_mb: int | None = None) -> str:
    """One line for any failure of the model's code."""
    from initlint.runtime.build import BuildError

    if isinstance(error, BuildError):
        return str(error)
    if isinstance(error, SystemExit):
        return f"the model code called sys.exit({error.code!r})"
    if isinstance(error, KeyboardInterrupt):
        return "interrupted"
    text = str(error).strip().splitlines()
    first = text[0][:300] if text else ""
    lowered = first.lower()
    if isinstance(error, MemoryError) or any(text in lowered for text in _OUT_OF_MEMORY):
        limit = f" (limit {memory_limit_mb} MB)" if memory_limit_mb else ""
        return f"the model ran out of memory{limit}: {type(error).__name__}" + (f": {first}" if first else "")
    where = _user_frame(error)
    return f"the model code raised {type(error).__name__}" + (f": {first}" if first else "") + where


def _user_frame(error: BaseException) -> str:
    """` (at file.py:12)`: the innermost traceback frame outside initlint, torch and the stdlib."""
    library = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))), os.path.dirname(os.__file__))
    found = ""
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(library) and "site-packages" not in filename and not filename.startswith("<"):
            found = f" (at {os.path.basename(filename)}:{tb.tb_lineno})"
        tb = tb.tb_next
    return found


def _run_spec(spec: dict[str, Any]) -> dict[str, Any]:
    import torch

    from initlint.runtime import build
    from initlint.runtime.pipeline import Options, verify_factory
    from initlint.runtime.policy import Policy
    from initlint.runtime.report import Report

    torch.set_num_threads(1)  # contention slows reductions ~14x; one thread is fastest here
    options = Options(
        policy=Policy.parse(spec.get("policy")), device=spec.get("device") or "cpu",
        materialize=bool(spec.get("materialize")), input_shape=tuple(spec["input_shape"]) if spec.get("input_shape") else None,
        seed=int(spec.get("seed", 0)), focus_files=tuple(spec.get("focus_files", ())),
        base_std=spec.get("base_std"), progress=_progress if spec.get("progress") else (lambda message: None),
    )
    skipped: list[str] = []
    factories = build.model_factories(spec["file"], spec.get("model"), spec.get("config"), spec.get("factory"), skipped)
    report = Report()
    for label, factory in factories:
        try:
            report.models.append(verify_factory(label, factory, options))
            report.models[-1].notes.extend(f"not verified: {reason}" for reason in skipped)
            skipped = []
        except BaseException as error:  # noqa: BLE001 -- one model failing leaves the others
            if isinstance(error, SystemExit) or not isinstance(error, Exception):
                raise
            report.errors.append(f"{label}: {describe_failure(error, spec.get('memory_limit_mb'))}")
    return report.to_dict()


if __name__ == "__main__":
    try:
        child_main(sys.argv[1], sys.argv[2])
    finally:
        # Non-daemon threads the model started must not keep the child alive.
        sys.stdout.flush() if sys.stdout else None
        os._exit(0)
