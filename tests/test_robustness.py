"""Never a traceback: every file gets findings or nothing, and each file's work is bounded.

Everything here runs the whole engine (`lint_source` / `lint_file` / `lint_files` / the CLI),
so whatever the analysis grows into is covered by the same inputs.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time

import pytest

import initlint.analysis
from initlint import guard
from initlint.cli import main
from initlint.engine import lint_file, lint_files, lint_source
from initlint.nesting import MAX_BRACKET_DEPTH, MAX_EXPRESSION_DEPTH, measure, nesting_problem
from robustness_inputs import ADVERSARIAL, generated_file, nano_gpt

#: Adversarial cases beyond initlint's documented bounds: refused with one INI901.
REFUSED = {
    "std with a 10,000-term sum": "nesting too deep to analyse",
    "std in 500 nested parentheses": "nesting too deep to analyse",
    "100 nested functions": "too many levels of indentation",
}


def codes(findings) -> list[str]:
    return [finding.code for finding in findings]


def assert_one_line(findings) -> None:
    for finding in findings:
        assert "\n" not in finding.message and finding.message.strip() == finding.message


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_model_files_are_analysed_or_refused_in_bounds(name):
    source = ADVERSARIAL[name]
    recursion_limit = sys.getrecursionlimit()
    findings = lint_source(source, f"{name}.py")
    assert "INI902" not in codes(findings), [f.message for f in findings]
    assert_one_line(findings)
    tool = [finding for finding in findings if finding.code == "INI901"]
    if name in REFUSED:
        assert len(tool) == 1 and REFUSED[name] in tool[0].message, tool
    else:
        assert tool == [], tool
    assert sys.getrecursionlimit() == recursion_limit  # the raised limit is given back


def test_the_analysis_still_reports_inside_adversarial_files():
    """The bounds must not cost findings: the unscaled model under 90 levels of parentheses
    still has its two unscaled residual writers."""
    deep = ADVERSARIAL["std in 90 nested parentheses"]
    assert (
        codes(lint_source(deep, "deep.py")).count("INI001")
        == codes(lint_source(nano_gpt(False), "m.py")).count("INI001")
        > 0
    )


def test_a_long_generated_file_is_checked_within_its_budget():
    """Slowest test here (~5 s): 10,000 lines (docs/robustness.md records the 50,000-line one)."""
    source = generated_file(10_000)
    start = time.process_time()
    findings = lint_source(source, "generated.py")
    elapsed = time.process_time() - start
    assert not {"INI901", "INI902"} & set(codes(findings)), findings[:3]
    assert elapsed < guard.DEFAULT_BUDGET.seconds_for(source)


BROKEN_FILES = {
    "syntax_error.py": (b"import torch.nn as nn\nclass Block(nn.Module:\n    pass\n", "syntax error"),
    "unclosed.py": (b"import torch\nlayers = [nn.Linear(4, 4),\n", "was never closed"),
    "latin1_without_cookie.py": ("import torch\nname = 'caf\u00e9'\n".encode("latin-1"), "cannot decode"),
    "unknown_cookie.py": (b"# -*- coding: klingon -*-\nimport torch\n", "cannot decode"),
    "nul_bytes.py": (b"import torch\nx = 1\x00\n", "NUL bytes"),
    "binary_junk.py": (bytes(range(256)) * 4 + b"torch nn.Module", "NUL bytes"),
    "utf8_junk.py": (b"torch nn.Module \xc3\x28 \xff\xfe", "cannot decode"),
    "deep_brackets.py": (b"import torch\nx = " + b"[" * 5000 + b"]" * 5000 + b"\n", "brackets nested 5000 levels"),
    "deep_sum.py": (b"import torch\nx = " + b" + ".join([b"1"] * 20000) + b"\n", "nesting too deep"),
    "deep_attributes.py": (b"import torch\nx = torch" + b".nn" * 6000 + b"\n", "nesting too deep"),
}


@pytest.fixture
def broken_folder(tmp_path):
    for name, (data, _) in BROKEN_FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.mark.parametrize("name", sorted(BROKEN_FILES))
def test_each_broken_file_gets_one_ini901_with_its_reason(broken_folder, name):
    findings = lint_file(broken_folder / name)
    assert codes(findings) == ["INI901"], findings
    assert BROKEN_FILES[name][1] in findings[0].message, findings[0].message
    assert_one_line(findings)


def test_unreadable_paths_get_one_ini901(tmp_path):
    (tmp_path / "folder.py").mkdir()
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    for name in ("folder.py", "dangling.py"):
        findings = lint_file(tmp_path / name)
        assert codes(findings) == ["INI901"] and "cannot read" in findings[0].message


def test_empty_and_marker_free_files_get_nothing(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "plain.py").write_bytes(b"print('hello')\n")
    assert lint_files([str(tmp_path / "empty.py"), str(tmp_path / "plain.py")]).findings == []


def test_syntax_newer_than_libcst_is_named_as_such():
    """Where CPython accepts a file LibCST cannot parse, the message says so. Which syntax that
    is depends on both versions, so the case is made from what this LibCST rejects."""
    from initlint.engine import UnparseableSource, parse

    # An annotated assignment to a parenthesised name: valid since Python 3.6, not in LibCST 1.9.
    candidates = ["(width): int = 64\n", "def f[T: (int, str)](x: T) -> T: ...\n"]
    for candidate in candidates:
        try:
            compile(candidate, "<c>", "exec", dont_inherit=True)
            parse("import torch\n" + candidate)
        except SyntaxError:
            continue
        except UnparseableSource as error:
            assert "LibCST" in error.reason and "valid Python" in error.reason
            return
    pytest.skip("this LibCST parses every candidate this Python accepts")


def test_a_run_goes_on_after_broken_files_and_exits_1(broken_folder, capsys):
    (broken_folder / "model.py").write_text(nano_gpt(scaled=False), encoding="utf-8")
    status = main(["check", "--isolated", "--format", "json", str(broken_folder)])
    report = json.loads(capsys.readouterr().out)
    by_file = {}
    for finding in report:
        by_file.setdefault(os.path.basename(finding["path"]), []).append(finding["code"])
    assert status == 1
    assert "INI001" in by_file["model.py"]
    assert all(by_file[name] == ["INI901"] for name in BROKEN_FILES)


def test_exit_2_only_when_no_file_could_be_checked(broken_folder, capsys):
    assert main(["check", "--isolated", str(broken_folder)]) == 2
    (broken_folder / "plain.py").write_text("print('a file without any model is still checked')\n")
    assert main(["check", "--isolated", str(broken_folder)]) == 1
    capsys.readouterr()


def test_the_cli_process_never_prints_a_traceback(broken_folder):
    (broken_folder / "model.py").write_text(nano_gpt(scaled=False), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "initlint", "check", "--isolated", "--jobs", "2", str(broken_folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.count("INI901") >= len(BROKEN_FILES)


# -- failures of initlint itself ------------------------------------------------------------


@pytest.fixture
def failing_analysis(monkeypatch):
    """Run `behaviour(analyse)` instead of the analysis for sources containing `# FAIL`."""
    real = initlint.analysis.analyze

    def install(behaviour):
        def analyze(module, *args, **kwargs):
            if "# FAIL" in module.code:
                return behaviour(lambda: real(module, *args, **kwargs))
            return real(module, *args, **kwargs)

        monkeypatch.setattr(initlint.analysis, "analyze", analyze)

    return install


def test_an_exception_in_the_analysis_is_one_ini902_and_the_run_goes_on(failing_analysis, tmp_path):
    def fail(analyse):
        raise KeyError("c_proj\nsecond line")

    failing_analysis(fail)
    (tmp_path / "a_failing.py").write_text(nano_gpt(scaled=False) + "# FAIL\n")
    (tmp_path / "b_model.py").write_text(nano_gpt(scaled=False))
    result = lint_files([str(tmp_path / "a_failing.py"), str(tmp_path / "b_model.py")])
    failing = [f for f in result.findings if f.path.endswith("a_failing.py")]
    assert codes(failing) == ["INI902"]
    assert (
        "KeyError" in failing[0].message
        and "c_proj" in failing[0].message
        and "test_robustness.py" not in failing[0].message
    )
    assert_one_line(failing)
    assert "INI001" in codes(f for f in result.findings if f.path.endswith("b_model.py"))


def test_runaway_recursion_in_the_analysis_is_one_ini902(failing_analysis):
    def recurse(depth=0):
        return recurse(depth + 1)

    failing_analysis(lambda analyse: recurse())
    limit = sys.getrecursionlimit()
    findings = lint_source(nano_gpt() + "# FAIL\n", "m.py")
    assert codes(findings) == ["INI902"] and "RecursionError" in findings[0].message
    assert sys.getrecursionlimit() == limit


def test_deep_recursion_within_the_budget_does_not_fail(failing_analysis):
    """The worker's stack and recursion limit hold recursion far deeper than the
    interpreter's default 1000 frames (here 20,000 frames through C calls)."""

    def recurse(depth):
        return depth if depth == 0 else 1 + max([recurse(depth - 1)])

    def deep_then_analyse(analyse):
        assert recurse(20_000) == 20_000
        return analyse()

    failing_analysis(deep_then_analyse)
    findings = lint_source(nano_gpt(scaled=False) + "# FAIL\n", "m.py")
    assert codes(findings) == codes(lint_source(nano_gpt(scaled=False), "m.py"))


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(guard, "DEFAULT_BUDGET", guard.Budget(time_s=0.5, time_per_line_s=0.0))


def test_an_analysis_that_checks_its_deadline_stops_at_the_budget(failing_analysis, small_budget):
    def spin(analyse):
        while True:
            try:
                guard.check_deadline()
            except Exception:  # the budget is not an Exception: this must not swallow it
                pass

    failing_analysis(spin)
    start = time.monotonic()
    findings = lint_source(nano_gpt() + "# FAIL\n", "m.py")
    assert codes(findings) == ["INI902"] and "the analysis ran past its 0.5 s CPU-time budget" in findings[0].message
    assert time.monotonic() - start < 30


def test_an_analysis_that_never_checks_its_deadline_is_stopped_by_the_backstop(failing_analysis, small_budget):
    def spin(analyse):
        while True:
            pass

    failing_analysis(spin)
    start = time.monotonic()
    findings = lint_source(nano_gpt() + "# FAIL\n", "m.py")
    assert codes(findings) == ["INI902"] and "analysis ran past its 0.5 s CPU-time budget" in findings[0].message
    assert time.monotonic() - start < 30
    assert lint_source(nano_gpt(), "ok.py") == []  # and the next file is checked normally


def test_the_budget_is_cpu_time_so_a_busy_machine_does_not_change_the_result(failing_analysis, small_budget):
    """Three seconds without the CPU (as on a loaded machine, where the thread waits for a
    core) are six times the 0.5 s budget of wall time, and cost nothing of the CPU budget."""

    def descheduled(analyse):
        time.sleep(3)
        return analyse()

    failing_analysis(descheduled)
    source = nano_gpt(scaled=False) + "# FAIL\n"
    assert (
        codes(lint_source(source, "m.py")) == codes(lint_source(nano_gpt(scaled=False), "m.py")) == ["INI001", "INI001"]
    )


def test_a_full_collection_of_a_big_heap_is_not_charged_to_the_file(failing_analysis, small_budget):
    """A gen-2 collection walks every object of the process: in a long test session or a
    language server one took a second of the worker's CPU. Here a collection hook burns two
    budgets' worth of CPU inside one, and the file is still analysed."""

    def heavy_collection(phase, info):
        if phase == "start" and info["generation"] == 2:
            spin_until = time.thread_time() + 1.5
            while time.thread_time() < spin_until:
                pass

    def collecting(analyse):
        gc.callbacks.append(heavy_collection)
        try:
            gc.collect()
        finally:
            gc.callbacks.remove(heavy_collection)
        return analyse()

    failing_analysis(collecting)
    source = nano_gpt(scaled=False) + "# FAIL\n"
    assert codes(lint_source(source, "m.py")) == ["INI001", "INI001"]


def test_the_message_says_which_phase_ran_out(monkeypatch, small_budget):
    """A parse that runs away (here a Python-level loop standing in for one) is named as such."""
    import initlint.engine

    def endless_parse(source):
        while True:
            pass

    monkeypatch.setattr(initlint.engine.cst, "parse_module", endless_parse)
    findings = lint_source(nano_gpt(), "m.py")
    assert codes(findings) == ["INI902"] and "the parse ran past its 0.5 s CPU-time budget" in findings[0].message


def test_without_a_thread_to_spare_the_file_is_still_checked(monkeypatch):
    import threading

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    assert codes(lint_source(nano_gpt(scaled=False), "m.py")).count("INI001") == 2


def test_check_deadline_outside_a_bounded_run_does_nothing():
    guard.check_deadline()
    assert not guard.in_bounded_run()


# -- the nesting pre-scan --------------------------------------------------------------------

SHAPES = {
    "sum": lambda n: "x = " + " + ".join(["a"] * (n + 1)),
    "attribute chain": lambda n: "x = a" + ".b" * n,
    "call chain": lambda n: "x = f" + "()" * n,
    "unary": lambda n: "x = " + "not " * n + "a",
    "power": lambda n: "x = " + " ** ".join(["2"] * (n + 1)),
    "ternary": lambda n: "x = " + "a if c else " * n + "b",
    "implicit concatenation": lambda n: "x = (" + " ".join(['"s"'] * (n + 1)) + ")",
    "nested calls": lambda n: "x = " + "f(" * n + "1" + ")" * n,
    "nested subscripts": lambda n: "x = " + "a[" * n + "1" + "]" * n,
    "multi-line sum": lambda n: "x = (a\n" + "    + a\n" * n + ")",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_prescan_never_underestimates_the_depth(shape):
    for depth in (10, 80, 700):
        nesting = measure(SHAPES[shape](depth) + "\n")
        assert max(nesting.expression_depth, nesting.bracket_depth) >= depth


def test_flat_data_and_ordinary_code_stay_shallow():
    table = "TABLE = [" + ", ".join(f"({i}, {i}.5, 'v{i}')" for i in range(20_000)) + "]\n"
    assert measure(table).expression_depth < 10 and nesting_problem(table) is None
    model = measure(nano_gpt())
    assert model.bracket_depth < MAX_BRACKET_DEPTH // 10 and model.expression_depth < MAX_EXPRESSION_DEPTH // 50


def test_many_deep_statements_are_refused_together_not_one_by_one():
    statement = "x = " + " + ".join(["a"] * (MAX_EXPRESSION_DEPTH * 3 // 4)) + "\n"
    assert nesting_problem(statement) is None
    problem = nesting_problem(statement * 40)
    assert problem is not None and "would take about" in problem[0]


def test_brackets_inside_strings_and_comments_do_not_count():
    source = 'x = \'(((((\'  # [[[[[[\ny = """\n' + "(" * 500 + '\n"""\n'
    assert measure(source).bracket_depth == 0


# -- determinism -----------------------------------------------------------------------------


def test_the_output_is_byte_identical_whatever_the_number_of_jobs(broken_folder, capsys):
    for index in range(6):
        source = nano_gpt(scaled=index % 2 == 0).replace("n_layer: int = 8", f"n_layer: int = {index + 2}")
        (broken_folder / f"model_{index}.py").write_text(source)
    (broken_folder / "adversarial.py").write_text(ADVERSARIAL["recursive class hierarchy"])
    outputs = []
    for jobs in ("1", "3"):
        status = main(["check", "--isolated", "--format", "json", "--jobs", jobs, str(broken_folder)])
        outputs.append((status, capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert outputs[0][1].count('"INI001"') >= 6 and outputs[0][1].count('"INI901"') == len(BROKEN_FILES)

    # Hidden entries are not inputs (the project layer keeps its summary cache in `.initlint_cache`).
    files = sorted(str(path) for path in broken_folder.iterdir() if not path.name.startswith("."))
    serial, parallel = lint_files(files, jobs=1), lint_files(files, jobs=2)
    assert [f.to_dict() for f in serial.findings] == [f.to_dict() for f in parallel.findings]
    assert (serial.files_checked, serial.files_not_checked) == (parallel.files_checked, parallel.files_not_checked)
    assert serial.files_not_checked == len(BROKEN_FILES) and not serial.nothing_checked


def test_the_scale_run_script_on_a_slice_of_the_standard_library():
    """The scale run itself (`scripts/scale_run.py`, see docs/robustness.md) on 40 stdlib
    files spread over the whole library: zero internal errors."""
    result = subprocess.run(
        [
            sys.executable,
            os.path.join(os.path.dirname(__file__), "..", "scripts", "scale_run.py"),
            "--sources",
            "stdlib",
            "--limit",
            "40",
            "--jobs",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "INI902 internal errors: 0" in result.stdout


def test_long_polynomials_measure_about_their_number_of_terms():
    """Generated maths (as in sympy's tables) is deep only along its sum: accepted."""
    polynomial = "p = " + " - ".join(f"{i}*a**{i % 7}*b**2*c" for i in range(1, 1500)) + "\n"
    nesting = measure(polynomial)
    assert 1499 <= nesting.expression_depth <= 1520 and nesting_problem(polynomial) is None


def _lint_or_die(name, settings):
    """A lint_file whose worker process dies on `dies.py` (top level: spawned workers import it)."""
    if name.endswith("dies.py"):
        os._exit(3)
    return lint_file(name, settings)


def test_a_dying_worker_process_costs_files_an_ini902_not_the_run(tmp_path):
    from initlint.config import Settings
    from initlint.parallel import map_files

    names = []
    for stem in ("a", "b", "dies", "c", "d"):
        (tmp_path / f"{stem}.py").write_text(nano_gpt(scaled=False))
        names.append(str(tmp_path / f"{stem}.py"))
    results = list(map_files(_lint_or_die, names, Settings(), jobs=2))
    assert len(results) == len(names)
    dead = results[names.index(str(tmp_path / "dies.py"))]
    assert codes(dead) == ["INI902"] and "worker process" in dead[0].message
    assert all(codes(findings) in (["INI902"], ["INI001", "INI001"]) for findings in results)


def test_workers_that_cannot_start_leave_the_files_to_the_caller(tmp_path):
    """A lint function the workers cannot import (it lives in the caller's `__main__`): no
    worker gets ready, and every file is checked in the calling process instead."""
    for stem in ("a", "b", "c"):
        (tmp_path / f"{stem}.py").write_text(nano_gpt(scaled=False))
    script = (
        "import os, sys\n"
        "from initlint.config import Settings\n"
        "from initlint.engine import lint_file\n"
        "from initlint.parallel import map_files\n"
        "def only_here(name, settings):\n"
        "    return lint_file(name, settings)\n"
        "names = sorted(os.path.join(sys.argv[1], name) for name in os.listdir(sys.argv[1]))\n"
        "print([[f.code for f in findings] for findings in map_files(only_here, names, Settings(), jobs=2)])\n"
    )
    result = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str([["INI001", "INI001"]] * 3)
