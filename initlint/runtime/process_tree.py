"""Finding and killing every process below one: the child and what the model's code started.

Both sides use it: the parent kills the child's tree when the check ends or times out
(`kill_tree`), the child kills what the model started when it ends or loses its parent
(`kill_descendants`). Linux shows the tree in /proc; elsewhere only the process group is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess


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
