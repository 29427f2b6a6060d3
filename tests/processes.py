"""Helpers of the tests that start initlint in a process of its own and signal it."""

from __future__ import annotations

import signal
import time


def wait_until(condition, timeout: float = 60.0, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def default_signal_handling() -> None:
    """`preexec_fn` for a process a test signals: initlint rightly keeps ignoring SIGHUP when
    started under `nohup`, and a child inherits that, so a suite run under `nohup` would see
    SIGHUP do nothing. The process starts as a shell would start it."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
