"""The model's code runs in a child: every way it can misbehave ends as one line."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("torch")

from initlint.runtime.isolation import run_isolated  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

GOOD_MODEL = """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        {body}
        self.emb = nn.Embedding(32, 8)
        self.out = nn.Linear(8, 32)

    def forward(self, ids):
        return self.out(self.emb(ids))
"""


def model_file(tmp_path, body: str = "pass", top: str = "") -> str:
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(top) + GOOD_MODEL.replace("{body}", body))
    return str(path)


def run(path: str, timeout: float = 60, memory: int | None = None, **spec):
    return run_isolated(dict(spec, file=path, policy="none"), timeout, memory)


def test_a_good_model_reports_back_with_progress(tmp_path):
    messages: list[str] = []
    spec = {"file": model_file(tmp_path), "policy": "none"}
    result = run_isolated(spec, 60, None, progress=messages.append)
    assert result.error is None and result.report["models"][0]["model"] == "Net"
    assert messages == ["Net: tracing the init on the meta device", "Net: finding residual writers"]


def test_import_error_is_one_line(tmp_path):
    result = run(model_file(tmp_path, top="import not_a_module_anywhere\n"))
    assert result.report is None
    assert (
        result.error
        == "the model code raised ModuleNotFoundError: No module named 'not_a_module_anywhere' (at model.py:1)"
    )


def test_exception_in_the_constructor_names_the_line(tmp_path):
    result = run(model_file(tmp_path, body="raise ValueError('bad width')"))
    errors = result.report["errors"]
    assert errors == ["Net: the model code raised ValueError: bad width (at model.py:8)"]


def test_sys_exit(tmp_path):
    result = run(model_file(tmp_path, body="import sys; sys.exit(3)"))
    assert result.error == "the model code called sys.exit(3)"


def test_os_exit_and_crash(tmp_path):
    result = run(model_file(tmp_path, body="import os; os._exit(0)"))
    assert result.error == "the model code ended the process (exit status 0) before the check finished"
    result = run(model_file(tmp_path, body="import ctypes; ctypes.string_at(0)"))
    assert result.error.startswith("the model code crashed with SIGSEGV")


def test_hang_is_killed_with_everything_it_started(tmp_path):
    pid_file = tmp_path / "pid"
    body = (
        f"import subprocess, time; p = subprocess.Popen(['sleep', '300']); "
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(300)"
    )
    start = time.monotonic()
    # The child must import torch before it reaches the model: on a loaded machine that alone can
    # take over 10 s, so the limit leaves room for it.
    result = run(model_file(tmp_path, body=body), timeout=30)
    assert time.monotonic() - start < 45
    assert result.error.startswith("timed out after 30 s")
    assert pid_file.exists(), "the child did not reach the model's code within 30 s (importing torch took that long?)"
    grandchild = int(pid_file.read_text())
    time.sleep(0.2)
    assert not _alive(grandchild)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_output_spam_is_contained(tmp_path):
    body = "import sys; [print('x' * 1000) for _ in range(20000)]; sys.stderr.write('y' * 5_000_000)"
    result = run(model_file(tmp_path, body=body))
    assert result.error is None and result.report["models"][0]["model"] == "Net"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_unbounded_allocation_hits_the_memory_limit(tmp_path):
    body = "blocks = []\n        while True: blocks.append(torch.empty(50_000_000, device='cpu'))"
    result = run(model_file(tmp_path, body=body), memory=1500)
    message = result.error or result.report["errors"][0]
    assert "ran out of memory (limit 1500 MB)" in message


def test_cli_still_prints_static_results_and_exits_cleanly(tmp_path):
    source = model_file(tmp_path, body="import sys; sys.exit(7)")
    out = subprocess.run(
        [sys.executable, "-m", "initlint", "check", source, "--runtime", "--isolated", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    import json

    findings = json.loads(out.stdout)
    assert [(f["code"], f["line"], f["message"]) for f in findings if f["code"] == "INI110"] == [
        ("INI110", 1, "runtime check not run: the model code called sys.exit(7)")
    ]
