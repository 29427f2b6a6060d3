"""The child process of `--runtime`: the only place the user's code runs.

Started by the parent (`isolation.run_isolated`) as `python -m initlint.runtime.child SPEC
RESULT`. The child makes itself a subreaper (Linux: orphans of the model's processes become its
children instead of init's, so they can still be found and killed), sets a hard address-space
limit the model cannot raise again (`RLIMIT_AS`, where the platform has it) before importing
torch, watches its parent (if initlint dies, the child kills everything it started, removes
its temporary folder and exits), runs the pipeline for every model of the spec and writes its
report as JSON. Whatever the model's code does wrong becomes one line (`describe_failure`).
Progress lines travel on stderr behind `PROGRESS_MARKER`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from json import dump as _json_dump  # taken before the model's code can replace it
from typing import Any

from initlint.runtime.process_tree import kill_descendants

#: Marks the child's progress lines on stderr; the parent forwards them and keeps the rest.
PROGRESS_MARKER = "\x1finitlint-progress:"
#: How allocators word running out of memory (torch's CPU allocator, mmap, CUDA).
_OUT_OF_MEMORY = ("can't allocate memory", "cannot allocate memory", "not enough memory", "out of memory")
#: How often the child looks whether initlint is still there.
_PARENT_POLL_S = 0.25


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
    report = Report()
    try:
        factories = build.model_factories(
            spec["file"], spec.get("model"), spec.get("config"), spec.get("factory"), skipped
        )
    except build.BuildError as error:
        if error.site is None:
            raise
        report.failed(str(error), error.site)  # no model of the file could be built: that class
        return report.to_dict()
    for label, factory in factories:
        try:
            report.models.append(verify_factory(label, factory, options))
            report.models[-1].notes.extend(f"not verified: {reason}" for reason in skipped)
            skipped = []
        except BaseException as error:  # noqa: BLE001 -- one model failing leaves the others
            if isinstance(error, SystemExit) or not isinstance(error, Exception):
                raise
            message = f"{label}: {describe_failure(error, spec.get('memory_limit_mb'))}"
            report.failed(message, build.model_site(spec["file"], label))
    return report.to_dict()


if __name__ == "__main__":
    try:
        child_main(sys.argv[1], sys.argv[2])
    finally:
        kill_descendants(os.getpid())  # daemons the model started end with the check
        # Non-daemon threads the model started must not keep the child alive.
        sys.stdout.flush() if sys.stdout else None
        os._exit(0)
