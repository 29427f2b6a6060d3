"""What a CI system does to a linter: SIGTERM and SIGHUP at a timeout, SIGKILL, a run killed in
the middle of `--fix`. Nothing may stay behind: no worker process, no temporary file.

All real processes and real signals; every wait is a poll with a generous bound, never a
fixed sleep that a loaded machine could outrun.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gpt_parts import GENERIC_INIT, gpt
from initlint.parallel import usable_cpus
from processes import alive, default_signal_handling, wait_until
from robustness_inputs import nano_gpt

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals and /proc")


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rpartition(")")[2].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def slow_folder(folder: Path, files: int = 40) -> Path:
    """Enough generated models that a `-j 2` run is still busy when the signal comes."""
    folder.mkdir(exist_ok=True)
    body = "\n".join(nano_gpt(scaled=index % 2 == 0) for index in range(6))
    for index in range(files):
        (folder / f"model_{index}.py").write_text(body)
    return folder


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")


@needs_proc
@pytest.mark.skipif(usable_cpus() < 2, reason="-j 2 runs in one process on a single CPU")
@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: signal.Signals(s).name
)
def test_workers_go_away_when_the_parent_is_killed(tmp_path, signum):
    folder = slow_folder(tmp_path / "models")
    parent = subprocess.Popen(
        [sys.executable, "-m", "initlint", "check", "--isolated", "-j", "2", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=default_signal_handling,
    )
    try:
        assert wait_until(lambda: len(children(parent.pid)) >= 2), "the workers never started"
        workers = children(parent.pid)
        parent.send_signal(signum)
        parent.wait(60)
        assert wait_until(lambda: not any(alive(pid) for pid in workers), timeout=30), "a worker outlived its parent"
        stderr = parent.stderr.read().decode()
    finally:
        parent.kill()
        parent.wait()
    assert "Traceback" not in stderr
    if signum != signal.SIGKILL:
        assert parent.returncode == 128 + signum
        assert f"initlint: terminated by {signal.Signals(signum).name}" in stderr


# -- --fix killed in the middle ------------------------------------------------------------------

KILL_DURING_REPLACE = textwrap.dedent(
    """
    import os, signal, sys
    import initlint.fixes
    from initlint.engine import lint_files
    from initlint.config import Settings

    calls = []
    real_replace = os.replace
    models = {os.path.abspath(name) for name in sys.argv[1:]}

    def replace_then_die(source, target):
        if os.path.abspath(target) not in models:  # the project summary cache writes too
            return real_replace(source, target)
        calls.append(target)
        if len(calls) == 2:  # after the first file: the others' temporaries are on disk
            os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(source, target)

    os.replace = replace_then_die
    result = lint_files(sys.argv[1:], Settings())
    initlint.fixes.apply_fixes(result.findings, unsafe=True)
    """
)


def test_a_fix_run_killed_while_replacing_leaves_nothing_the_next_run_does_not_clean(tmp_path):
    init_call = """
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        nn.init.normal_(p, std=0.02 / math.sqrt(config.n_layer))
"""
    source = gpt(init_call, GENERIC_INIT)
    models = []
    for index in range(4):
        models.append(tmp_path / f"model_{index}.py")
        models[-1].write_text(source)
    killed = subprocess.run(
        [sys.executable, "-c", KILL_DURING_REPLACE, *map(str, models)], capture_output=True, timeout=300
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = sorted(path.name for path in tmp_path.glob(".*.initlint-tmp"))
    assert len(left) == 3, left  # the control: the kill really left temporaries behind
    for model in models:  # every file is either the original or the fixed version, never broken
        assert model.read_text() in (
            source,
            source.replace("math.sqrt(config.n_layer)", "math.sqrt(2 * config.n_layer)"),
        )

    rerun = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "-q", "--isolated", "--fix", "--unsafe-fixes", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert list(tmp_path.glob(".*.initlint-tmp")) == []
    assert all("math.sqrt(2 * config.n_layer)" in model.read_text() for model in models)


def test_a_live_runs_temporaries_are_left_alone(tmp_path):
    """Only temporaries of runs that are gone are removed: another `--fix` may be writing."""
    from initlint.fixes import remove_stale_temporaries

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        live = tmp_path / f".model.py.{other.pid}.abcdefgh.initlint-tmp"
        live.write_text("x")
        finished = subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
        )
        dead = tmp_path / f".model.py.{int(finished.stdout)}.abcdefgh.initlint-tmp"
        dead.write_text("x")
        mine = tmp_path / "model.py"
        mine.write_text("x")
        assert remove_stale_temporaries([str(tmp_path)]) == [str(dead)]
        assert live.exists() and mine.exists() and not dead.exists()
    finally:
        other.kill()
        other.wait()


def test_a_read_only_file_is_left_unchanged_and_a_fixed_one_keeps_owner_and_mode(tmp_path):
    init_call = """
self.apply(self._init_weights)
for pn, p in self.named_parameters():
    if pn.endswith('c_proj.weight'):
        nn.init.normal_(p, std=0.02 / math.sqrt(config.n_layer))
"""
    source = gpt(init_call, GENERIC_INIT)
    frozen, writable = tmp_path / "frozen.py", tmp_path / "writable.py"
    for path in (frozen, writable):
        path.write_text(source)
    frozen.chmod(0o444)
    writable.chmod(0o640)
    before = writable.stat()
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "-q", "--isolated", "--fix", "--unsafe-fixes", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert frozen.read_text() == source and frozen.stat().st_mode & 0o777 == 0o444
    assert "frozen.py: the file is read-only; make it writable to fix it" in result.stderr, result.stderr
    after = writable.stat()
    assert writable.read_text() != source
    assert (after.st_uid, after.st_gid, after.st_mode) == (before.st_uid, before.st_gid, before.st_mode)


@needs_proc
def test_jobs_is_capped_at_the_files_and_the_cpus(tmp_path):
    from initlint.parallel import worker_count

    assert worker_count(100_000, 40) == min(40, usable_cpus())
    assert worker_count(100_000, 3) == min(3, usable_cpus())
    folder = slow_folder(tmp_path / "models", files=6)
    parent = subprocess.Popen(
        [sys.executable, "-m", "initlint", "check", "--isolated", "-j", "100000", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    most, deadline = 0, time.monotonic() + 300
    while parent.poll() is None and time.monotonic() < deadline:
        most = max(most, len(children(parent.pid)))
        time.sleep(0.05)
    parent.kill()
    parent.wait()
    assert parent.returncode == 1, "the run did not finish in 300 s"
    assert 0 < most <= min(6, usable_cpus()) or usable_cpus() == 1
