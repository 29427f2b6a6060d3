"""Bounds on the work one file may cost: time, recursion depth, stack.

The engine runs each file's parse and analysis through `run_bounded`, in a worker thread
with a large stack and a raised recursion limit, so that deep but legitimate syntax trees
are analysed instead of overflowing (measured: CPython 3.11 on an 8 MiB main-thread stack
segfaults after 10-30k frames of C-level recursion; a 256 MiB thread takes 300k).

Time is the worker thread's *CPU time*, not wall time, so that a file's verdict does not
depend on how busy the machine is (on a loaded CI runner the wall clock of a 2 s analysis
ran past 10 s). Full garbage collections the worker happens to trigger are not counted
either: they walk every object of the process, so their cost is the heap's, not the file's
(in a long test session or language server one took a second, twice a 0.5 s budget). It is
bounded twice:

* cooperatively: long-running analysis loops call `check_deadline()`, which raises
  `BudgetExceeded` once the file's budget is spent (cheap: one clock read);
* as a backstop: if the worker has used twice its budget, the waiting thread raises
  `BudgetExceeded` inside it (CPython's `PyThreadState_SetAsyncExc`), which interrupts any
  Python-level loop, including one that never calls `check_deadline()`. A worker that uses
  no CPU at all (blocked in native code) is given up after `wall_safety_factor` times its
  budget of wall time.

The budget counts from `restart_clock()`, which the engine calls after the parse: the parse
(native code that nothing can interrupt, bounded by `nesting` before it starts) has a budget
of its own, and the message says which phase ran out.

`BudgetExceeded` derives from BaseException so that `except Exception` blocks in the
analysis cannot swallow it.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")


class BudgetExceeded(BaseException):
    """The work on one file ran past its time budget."""

    def __init__(self, budget_s: float | None = None, phase: str = "analysis") -> None:
        # The backstop raises the bare class inside the worker: no budget known there.
        budget = "" if budget_s is None else f"{budget_s:g} s "
        super().__init__(f"the {phase} ran past its {budget}CPU-time budget")
        self.budget_s, self.phase = budget_s, phase


@dataclass(frozen=True)
class Budget:
    #: Seconds one file's analysis (after its parse) may take before `check_deadline()` raises ...
    time_s: float = 10.0
    #: ... plus this much per line: LibCST alone parses about 2,500 lines a second here.
    time_per_line_s: float = 0.001
    #: The backstop interrupts the worker at this many times its budget.
    backstop_factor: float = 2.0
    #: ... and a worker that does not use the CPU at this many times its budget of wall time.
    wall_safety_factor: float = 20.0
    #: Python frames allowed while the worker runs (the interpreter default is 1000).
    recursion_limit: int = 50_000
    #: The worker thread's stack: enough for `recursion_limit` frames of C-level recursion.
    stack_bytes: int = 256 * 1024 * 1024

    def seconds_for(self, source: str) -> float:
        return self.time_s + self.time_per_line_s * source.count("\n")


DEFAULT_BUDGET = Budget()


class _Clock:
    """One file's CPU-time budget, shared by its worker and the thread waiting for it.
    `deadline` is on the worker thread's CPU clock: only the worker may (re)start it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.phase = "parse"
        self.deadline = float("inf")
        self.cpu_clock: int | None = None  # the worker's clock, as other threads read it
        #: CPU seconds the worker spent in full collections; they move the deadline back.
        self.collecting_s = 0.0
        self.collection_started: float | None = None

    def start(self, phase: str) -> None:
        self.phase = phase
        self.deadline = self.own_time(time.thread_time()) + self.seconds

    def own_time(self, thread_cpu: float) -> float:
        """The worker's CPU time less its full collections (one in progress included)."""
        if self.collection_started is not None:
            thread_cpu = min(thread_cpu, self.collection_started)
        return thread_cpu - self.collecting_s

    def worker_cpu(self) -> float | None:
        """The worker's CPU time, read from another thread; None where it cannot be."""
        if self.cpu_clock is None:
            return None
        try:
            return self.own_time(time.clock_gettime(self.cpu_clock))
        except OSError:  # the thread is gone
            return None


class _ThreadBudget(threading.local):
    # A class-level default: reading it in a thread that never set it raises nothing (an
    # AttributeError caught by getattr would make `check_deadline` four times slower).
    clock: _Clock | None = None


_local = _ThreadBudget()


def check_deadline() -> None:
    """Raise `BudgetExceeded` when the current file's time budget is spent.

    Call it from loops whose trip count the input controls (fixpoints, alias chains, walks
    over the model tree). Outside `run_bounded` it does nothing.
    """
    clock = _local.clock
    # Inline `own_time`: this runs in hot loops, and no collection is in progress here.
    if clock is not None and time.thread_time() - clock.collecting_s > clock.deadline:
        raise BudgetExceeded(clock.seconds, clock.phase)


def _time_full_collections(phase: str, info: dict) -> None:
    """A `gc.callbacks` hook: it runs in the thread whose allocation set the collection off."""
    clock = _local.clock
    if clock is None or info.get("generation") != 2:
        return
    if phase == "start":
        clock.collection_started = time.thread_time()
    elif clock.collection_started is not None:
        clock.collecting_s += time.thread_time() - clock.collection_started
        clock.collection_started = None


gc.callbacks.append(_time_full_collections)


def restart_clock() -> None:
    """Give the current file its whole budget again, from now. The engine calls it after the
    parse, whose time the nesting scan bounds on its own (a deep file may parse for seconds)."""
    clock = _local.clock
    if clock is not None:
        clock.start("analysis")


def in_bounded_run() -> bool:
    return _local.clock is not None


_recursion_lock = threading.Lock()
_recursion_users = 0
_recursion_saved = 0


@contextmanager
def _raised_recursion_limit(limit: int) -> Iterator[None]:
    """The limit is interpreter-wide: raise it while any worker runs, restore it after the last."""
    global _recursion_users, _recursion_saved
    with _recursion_lock:
        if _recursion_users == 0:
            _recursion_saved = sys.getrecursionlimit()
        _recursion_users += 1
        if sys.getrecursionlimit() < limit:
            sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        with _recursion_lock:
            _recursion_users -= 1
            if _recursion_users == 0:
                sys.setrecursionlimit(_recursion_saved)


_stack_size_lock = threading.Lock()


def _interrupt(thread: threading.Thread) -> bool:
    """Raise BudgetExceeded inside `thread` at its next bytecode; False where unsupported."""
    import ctypes  # only ever needed for a runaway file

    try:
        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except AttributeError:  # not CPython
        return False
    set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
    return set_async_exc(thread.ident, BudgetExceeded) == 1


def run_bounded(work: Callable[[], T], budget: Budget = DEFAULT_BUDGET, seconds: float | None = None) -> T:
    """`work()` in a worker thread, given `seconds` (default `budget.time_s`) and the budget's
    stack and recursion limit; its exception, if any, is re-raised here."""
    if in_bounded_run():  # already inside a worker: its budget applies
        return work()
    clock = _Clock(budget.time_s if seconds is None else seconds)
    outcome: list = []

    def target() -> None:
        _local.clock = clock
        clock.cpu_clock = _own_cpu_clock()
        clock.start("parse")
        try:
            outcome.append((True, work()))
        except BaseException as error:  # handed to the waiting thread
            if isinstance(error, BudgetExceeded) and error.budget_s is None:
                error = BudgetExceeded(clock.seconds, clock.phase)
            outcome.append((False, error))
        finally:
            _local.clock = None

    worker = threading.Thread(target=target, name="initlint-analysis", daemon=True)
    if not _big_stack_supported(budget.stack_bytes):
        target()  # a default thread stack can be smaller than this thread's: stay here
    else:
        with _raised_recursion_limit(budget.recursion_limit):
            if _start(worker, budget.stack_bytes):
                _wait(worker, clock, budget)
            else:
                target()  # no thread to be had: run here, with the cooperative deadline only
    if not outcome:  # the backstop struck while the worker was handing over its result
        raise BudgetExceeded(clock.seconds, clock.phase)
    succeeded, value = outcome[0]
    if succeeded:
        return value
    raise value


def _own_cpu_clock() -> int | None:
    try:
        return time.pthread_getcpuclockid(threading.get_ident())
    except (AttributeError, OSError):  # not POSIX: the wall-time safety net only
        return None


def _wait(worker: threading.Thread, clock: _Clock, budget: Budget) -> None:
    """Wait for `worker`; past `backstop_factor` times its CPU budget (or the wall-time
    safety net), interrupt it."""
    give_up = time.monotonic() + clock.seconds * budget.wall_safety_factor
    try:
        while worker.is_alive():
            used = clock.worker_cpu()
            # Re-read each time: the worker restarts its clock after the parse.
            over = used is not None and used > clock.deadline + clock.seconds * (budget.backstop_factor - 1)
            if over or time.monotonic() > give_up:
                break
            worker.join(0.25)
    except BaseException:  # Ctrl-C, SIGTERM: stop the worker too
        _interrupt(worker)
        raise
    # An interrupt that lands while the worker runs a weakref callback or a `__del__` is printed
    # and dropped there ("Exception ignored"): send it again until the worker ends.
    stop_by = time.monotonic() + clock.seconds
    while worker.is_alive() and time.monotonic() < stop_by and _interrupt(worker):
        worker.join(0.1)
    if worker.is_alive():  # stuck in native code: leave it behind, report the file
        raise BudgetExceeded(clock.seconds, clock.phase)


@lru_cache(maxsize=None)
def _big_stack_supported(stack_bytes: int) -> bool:
    """Whether this platform lets threads have that stack (some cap it, some refuse sizes)."""
    with _stack_size_lock:
        try:
            previous = threading.stack_size(stack_bytes)
        except (ValueError, RuntimeError):
            return False
        threading.stack_size(previous)
    return True


def _start(worker: threading.Thread, stack_bytes: int) -> bool:
    """Start `worker` with that stack (0: the default); False when no thread can be started."""
    with _stack_size_lock:
        previous = threading.stack_size(stack_bytes)
        try:
            worker.start()
        except RuntimeError:  # "can't start new thread": out of memory or address space
            return False
        finally:
            threading.stack_size(previous)
    return True
