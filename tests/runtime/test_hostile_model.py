"""`--runtime` against a model that fights back: it reads the environment, changes folder,
starts setsid daemons, raises its memory limit, replaces `json.dump`, kills initlint.

Real torch models in the real child process; every wait polls with a generous bound.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

from initlint.runtime.isolation import run_isolated  # noqa: E402
from processes import alive, default_signal_handling, wait_until  # noqa: E402

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc, prctl, RLIMIT_AS")

MODEL = """
import torch
import torch.nn as nn
{top}

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        {body}
        self.emb = nn.Embedding(32, 8)
        self.out = nn.Linear(8, 32)

    def forward(self, ids):
        return self.out(self.emb(ids))
"""

#: A double-forked daemon in its own session (escapes a process-group kill); writes its pid.
DAEMON = """
def start_daemon(pid_file):
    import os, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pid_file, "w") as handle:
                handle.write(str(os.getpid()))
            time.sleep(600)
        os._exit(0)
    for _ in range(600):
        if os.path.exists(pid_file) and open(pid_file).read():
            return
        time.sleep(0.05)
"""


def write_model(folder: Path, body: str = "pass", top: str = "") -> Path:
    path = folder / "model.py"
    path.write_text(MODEL.replace("{top}", textwrap.dedent(top)).replace("{body}", body))
    return path


def run(path, timeout: float = 120, memory: int | None = None):
    return run_isolated({"file": str(path), "policy": "none"}, timeout, memory)


def test_the_child_gets_a_trimmed_environment_and_its_own_folder(tmp_path, monkeypatch):
    seen = tmp_path / "seen.json"
    monkeypatch.setenv("GITHUB_TOKEN", "secret-value")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-value")
    monkeypatch.setenv("HF_TOKEN", "secret-value")
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    top = f"import json, os\njson.dump({{'env': dict(os.environ), 'cwd': os.getcwd()}}, open({str(seen)!r}, 'w'))\n"
    result = run(write_model(tmp_path, top=top))
    assert result.error is None, result.error
    data = json.loads(seen.read_text())
    assert "secret-value" not in json.dumps(data["env"])
    assert data["env"]["TORCH_HOME"] == str(tmp_path) and "PATH" in data["env"]
    assert os.path.realpath(data["cwd"]) != os.path.realpath(os.getcwd())
    assert os.path.basename(data["cwd"]).startswith("initlint-runtime-")


def test_a_relative_path_survives_a_model_that_changes_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_model(tmp_path, top="import os\nos.chdir('/')\n")
    result = run("model.py")
    assert result.error is None and result.report["models"][0]["model"] == "Net", result.error


def test_a_setsid_daemon_does_not_outlive_the_check(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    result = run(write_model(tmp_path, top=DAEMON + f"start_daemon({str(pid_file)!r})\n"))
    assert result.error is None, result.error
    daemon = int(pid_file.read_text())
    assert wait_until(lambda: not alive(daemon), timeout=30), "the setsid daemon survived the check"


def test_the_memory_limit_is_hard(tmp_path):
    outcome = tmp_path / "outcome"
    top = (
        "import resource\n"
        "try:\n"
        "    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
        f"    open({str(outcome)!r}, 'w').write('raised')\n"
        "except (ValueError, OSError):\n"
        f"    open({str(outcome)!r}, 'w').write('refused ' + str(resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
    )
    result = run(write_model(tmp_path, top=top), memory=4000)
    assert result.error is None, result.error
    assert outcome.read_text() == f"refused {4000 * 2**20}"


def test_a_memory_limit_beyond_any_address_space_is_no_limit(tmp_path):
    result = run(write_model(tmp_path), memory=99999999999999)
    assert result.error is None and result.report["models"][0]["model"] == "Net", result.error


MALFORMED_REPORTS = {
    "not an object": [1, 2],
    "wrong types": {"report": {"models": [{"model": 5, "policy": []}]}, "error": None},
    "bad source": {
        "report": {
            "models": [
                {
                    "model": "N",
                    "policy": "p",
                    "findings": [{"code": "INI101", "message": "m", "params": [], "source": [3]}],
                }
            ]
        },
        "error": None,
    },
    "unknown field": {
        "report": {"models": [{"model": "N", "policy": "p", "rows": [{"name": "w", "x": 1}]}]},
        "error": None,
    },
}


@pytest.mark.parametrize("case", sorted(MALFORMED_REPORTS))
def test_a_model_that_replaces_the_json_encoder_cannot_crash_the_parent(tmp_path, case):
    """`json.dump` itself was taken before the model ran; the encoder underneath it cannot be."""
    text = json.dumps(MALFORMED_REPORTS[case])
    top = f"import json, json.encoder\njson.dump = None\njson.encoder.JSONEncoder.iterencode = lambda self, o, _one_shot=False: iter([{text!r}])\n"
    result = run(write_model(tmp_path, top=top))
    assert result.report is None and "the runtime check's report is malformed" in result.error, result.error


def test_a_lone_surrogate_in_the_models_error_reaches_the_user(tmp_path):
    path = write_model(tmp_path, body="raise ValueError('bad \\udc80 width')")
    for output in ("text", "json", "sarif"):
        completed = subprocess.run(
            [sys.executable, "-m", "initlint", "check", "--isolated", "--runtime", "--format", output, str(path)],
            capture_output=True,
            timeout=300,
            env=dict(os.environ, PYTHONIOENCODING="utf-8:strict"),
        )
        assert completed.returncode == 1, completed.stderr
        assert b"Traceback" not in completed.stderr and b"INI110" in completed.stdout
        assert "bad \ufffd width".encode() in completed.stdout or b"bad \\ufffd width" in completed.stdout


# -- initlint killed while the model runs -------------------------------------------------------


def runtime_run(tmp_path: Path, model: Path) -> tuple[subprocess.Popen, Path]:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "initlint", "check", "--isolated", "--runtime", "--timeout", "600", str(model)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ, TMPDIR=str(temporary)),
        preexec_fn=default_signal_handling,
    )
    return process, temporary


@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: signal.Signals(s).name
)
def test_the_child_and_its_daemons_die_with_initlint(tmp_path, signum):
    pid_file = tmp_path / "daemon.pid"
    model = write_model(tmp_path, top=DAEMON + f"start_daemon({str(pid_file)!r})\nimport time\ntime.sleep(600)\n")
    process, temporary = runtime_run(tmp_path, model)
    try:
        assert wait_until(lambda: pid_file.exists() and pid_file.read_text(), timeout=120), "the model never ran"
        daemon = int(pid_file.read_text())
        process.send_signal(signum)
        process.wait(60)
        assert wait_until(lambda: not alive(daemon), timeout=30), "the model's daemon outlived initlint"
        assert wait_until(lambda: not list(temporary.glob("initlint-runtime-*")), timeout=30), list(temporary.iterdir())
    finally:
        process.kill()
        process.wait()
    if signum != signal.SIGKILL:
        assert process.returncode == 128 + signum and b"Traceback" not in process.stderr.read()


def test_a_model_that_kills_initlint_leaves_no_orphan(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    top = (
        DAEMON
        + f"start_daemon({str(pid_file)!r})\nimport os, signal, time\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(600)\n"
    )
    process, temporary = runtime_run(tmp_path, write_model(tmp_path, top=top))
    try:
        process.wait(300)
        assert process.returncode == -signal.SIGKILL
        daemon = int(pid_file.read_text())
        assert wait_until(lambda: not alive(daemon), timeout=30), "the model's daemon survived"
        assert wait_until(lambda: not list(temporary.glob("initlint-runtime-*")), timeout=30)
    finally:
        process.kill()
        process.wait()
