"""The user's code runs only here: in a child process with a time and a memory limit.

The parent (`run_isolated`) starts `python -m initlint.runtime.isolation SPEC RESULT` in a new
session, in a private temporary folder as its working directory, with a trimmed environment
(`child_environment`: no tokens, keys or other variables the build does not need), stdout
discarded and stderr drained by a thread (so output spam can neither block the child nor
reach the user). It waits up to the time limit, then kills the child and every process it
started, setsid daemons included (`kill_tree`). Whatever happens in the model's code (a crash,
a hang, `sys.exit`, an import error, running out of memory) comes back as one line in
`ChildResult.error`; the child's report is checked against its schema before it is believed
(`validated_payload`), so a model that replaces `json.dump` cannot crash the parent.

The child makes itself a subreaper (Linux: orphans of the model's processes become its
children instead of init's, so they can still be found and killed), sets a hard address-space
limit the model cannot raise again (`RLIMIT_AS`, where the platform has it) before importing
torch, watches its parent (if initlint dies, the child kills everything it started, removes
its temporary folder and exits), runs the pipeline for every model of the spec and writes its
report as JSON. Progress lines travel on stderr behind a marker.

What this is not: a sandbox. The model's code runs as the user, with the user's file system
and network; see docs/robustness.md.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from dataclasses import dataclass
from json import dump as _json_dump  # taken before the model's code can replace it
from typing import Any, Callable

PROGRESS_MARKER = "\x1finitlint-progress:"
#: Default memory limit: this share of physical memory.
MEMORY_SHARE = 0.75
_TAIL_LINES = 20
#: How allocators word running out of memory (torch's CPU allocator, mmap, CUDA).
_OUT_OF_MEMORY = ("can't allocate memory", "cannot allocate memory", "not enough memory", "out of memory")
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
#: How often the child looks whether initlint is still there.
_PARENT_POLL_S = 0.25


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
                [sys.executable, "-m", "initlint.runtime.isolation", spec_path, result_path],
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


def kill_tree(child: subprocess.Popen) -> None:
    """Kill the child and everything it started, then reap it: where /proc shows the process
    tree, every descendant, stopped before it is killed so that nothing forks away meanwhile
    (the child is a subreaper: daemons that left its session with setsid are still below it);
    then its process group (all there is where /proc is missing)."""
    # The tree first, while the child is alive: a dead child's orphans move away. Never once it
    # has been reaped: its pid may belong to an unrelated process (it killed its own on exit).
    if child.poll() is None:
        kill_descendants(child.pid, include_root=True)
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError, OSError):
        pass
    try:
        child.wait(5)
    except subprocess.TimeoutExpired:
        pass


def kill_descendants(root: int, include_root: bool = False) -> None:
    """SIGSTOP, then SIGKILL, every process below `root` (Linux /proc; elsewhere nothing)."""
    stopped: set[int] = set()
    for _ in range(50):  # until no new process appears: each pass stops what it finds
        found = set(_descendants(root)) | ({root} if include_root else set())
        fresh = found - stopped
        if not fresh:
            break
        for pid in fresh:
            _signal(pid, signal.SIGSTOP)
        stopped |= fresh
    for pid in stopped:
        _signal(pid, signal.SIGKILL)


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _descendants(root: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                parent = int(handle.read().rpartition(b")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(parent, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        for pid in parents.get(queue.pop(), []):
            found.append(pid)
            queue.append(pid)
    return found


def _read_result(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError, RecursionError):
        return None


# -- the child's report, checked -----------------------------------------------------------------

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _Malformed(Exception):
    pass


def validated_payload(payload: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(report, error) from the child's JSON, checked against the report's schema; text with
    lone surrogates (from a model's exception message) made printable."""
    try:
        if not isinstance(payload, dict) or not isinstance(payload.get("error"), (str, type(None))):
            raise _Malformed("not a {report, error} object")
        report = payload.get("report")
        if report is not None:
            _check_report(report)
        return _printable(report), _printable(payload.get("error"))
    except (_Malformed, RecursionError) as error:
        return None, f"the runtime check's report is malformed ({error}); did the model code replace json.dump?"


def _check_report(report: Any) -> None:
    from dataclasses import fields
    from typing import get_type_hints

    from initlint.runtime.report import ModelReport, Row, RuntimeFinding

    if (
        not isinstance(report, dict)
        or not _conforms(report.get("models", []), list[dict])
        or not _conforms(report.get("errors", []), list[str])
    ):
        raise _Malformed("its models or errors are not lists")
    nested = {"rows": Row, "findings": RuntimeFinding}
    for model in report.get("models", []):
        for kind, items in [(ModelReport, [model])] + [(nested[key], model.get(key, [])) for key in nested]:
            hints = get_type_hints(kind)
            for item in items:
                if not isinstance(item, dict) or set(item) - {f.name for f in fields(kind)}:
                    raise _Malformed(f"unexpected fields in a {kind.__name__}")
                for name, value in item.items():
                    if name not in nested and not _conforms(value, hints[name], name):
                        raise _Malformed(f"{kind.__name__}.{name} is {type(value).__name__}")
        try:
            ModelReport.from_dict(model)
        except (TypeError, KeyError, ValueError) as error:
            raise _Malformed(str(error)) from None


def _conforms(value: Any, hint: Any, name: str = "") -> bool:
    """`value` (from JSON) matches the annotation `hint`; `source` is [file, line, caller lines...]."""
    import typing

    if name == "source" and value is not None:
        return (
            isinstance(value, list)
            and len(value) >= 2
            and isinstance(value[0], str)
            and all(isinstance(line, int) and not isinstance(line, bool) for line in value[1:])
        )
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return True
    if origin in (typing.Union, getattr(types, "UnionType", typing.Union)):
        return any(_conforms(value, argument) for argument in arguments)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin is list or hint is list:
        return (
            isinstance(value, list) and all(_conforms(item, arguments[0]) for item in value)
            if arguments
            else isinstance(value, list)
        )
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    return isinstance(hint, type) and isinstance(value, hint) and (hint is bool or not isinstance(value, bool))


def _printable(value: Any) -> Any:
    """Lone surrogates (JSON can carry them, no output stream can) become U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_printable(item) for item in value]
    if isinstance(value, dict):
        return {_printable(key): _printable(item) for key, item in value.items()}
    return value


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
        if limit >= 2**63 - 1:  # more than any address space: no limit to set
            return
        # Soft and hard: the model's code cannot raise it again.
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OverflowError, OSError, AttributeError):
        pass  # no RLIMIT_AS here (macOS, Windows): the time limit still holds


def _progress(message: str) -> None:
    try:
        os.write(2, f"{PROGRESS_MARKER}{message}\n".encode("utf-8", "replace"))
    except OSError:
        pass


def child_main(spec_path: str, result_path: str) -> None:
    folder = os.path.dirname(os.path.abspath(spec_path))
    _become_subreaper()
    _watch_parent(os.getppid(), folder)
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    _limit_memory(spec.get("memory_limit_mb"))
    # The user's folder, not this private one, is where `--factory pkg.module:f` is found.
    sys.path[:] = [spec.get("cwd") or folder] + [entry for entry in sys.path if entry not in ("", folder)]
    try:
        payload: dict[str, Any] = {"report": _run_spec(spec), "error": None}
    except BaseException as error:  # noqa: BLE001 -- SystemExit and friends from the model's code too
        payload = {"report": None, "error": describe_failure(error, spec.get("memory_limit_mb"))}
    temporary = result_path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        _json_dump(payload, handle, default=_json_default)
    os.replace(temporary, result_path)


def _become_subreaper() -> None:
    """Linux: orphaned descendants (a daemon that double-forked and called setsid) become
    this process's children instead of init's, so that `kill_descendants` still finds them."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _watch_parent(parent: int, folder: str) -> None:
    """If initlint dies (SIGKILL, or the model killed it), take everything down with us."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_S)
        kill_descendants(os.getpid())
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)

    threading.Thread(target=watch, name="initlint-parent-watch", daemon=True).start()


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
        policy=Policy.parse(spec.get("policy")),
        device=spec.get("device") or "cpu",
        materialize=bool(spec.get("materialize")),
        input_shape=tuple(spec["input_shape"]) if spec.get("input_shape") else None,
        seed=int(spec.get("seed", 0)),
        focus_files=tuple(spec.get("focus_files", ())),
        base_std=spec.get("base_std"),
        progress=_progress if spec.get("progress") else (lambda message: None),
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
        kill_descendants(os.getpid())  # daemons the model started end with the check
        # Non-daemon threads the model started must not keep the child alive.
        sys.stdout.flush() if sys.stdout else None
        os._exit(0)
