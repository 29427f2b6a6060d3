"""Test selection: `pytest -m "not slow"` is the fast static subset a contributor runs while
working; CI (`.ci/check`) runs everything.

A test is slow when it builds models with torch (tests/runtime), drives external tools or
whole runs (pre-commit, fuzzing, the scale script), or starts a process: any test whose code,
or a helper or fixture of its own module, names `subprocess` is marked automatically, so a new
CLI test needs no marker. In-process tests that are slow for other reasons are listed by name.
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent

#: Whole files or folders (relative to tests/) that are slow: torch models, pre-commit
#: environments, fuzzing, whole runs over a planted project.
SLOW_PATHS = ("runtime", "test_examples_run.py", "test_precommit.py", "test_fuzz.py", "test_no_import.py")

#: In-process tests that take seconds: worker processes, long generated inputs, budgets.
SLOW_TESTS = {
    "test_robustness.py": {
        "test_a_long_generated_file_is_checked_within_its_budget",
        "test_the_output_is_byte_identical_whatever_the_number_of_jobs",
        "test_a_dying_worker_process_costs_files_an_ini902_not_the_run",
        "test_runaway_recursion_in_the_analysis_is_one_ini902",
        "test_an_analysis_that_never_checks_its_deadline_is_stopped_by_the_backstop",
    },
    "test_cli.py": {"test_jobs_gives_the_same_output"},
}

#: Names whose presence in a test's code means it starts a process.
_SPAWNING_NAMES = frozenset({"subprocess", "Popen", "check_output"})


def _code_of(value: Any) -> types.CodeType | None:
    function = getattr(value, "__wrapped__", value)
    function = getattr(function, "_get_wrapped_function", lambda: function)()
    return function.__code__ if isinstance(function, types.FunctionType) else None


def _spawns(code: types.CodeType, module: types.ModuleType, seen: set[types.CodeType]) -> bool:
    """Does `code`, a function nested in it, or a function of `module` it names, use
    `subprocess`? (Helpers of other modules are not followed: they are the code under test.)"""
    if code in seen:
        return False
    seen.add(code)
    if _SPAWNING_NAMES & set(code.co_names):
        return True
    nested = [const for const in code.co_consts if isinstance(const, types.CodeType)]
    helpers = [_code_of(vars(module).get(name)) for name in code.co_names]
    local = [
        helper for helper in helpers if helper is not None and Path(helper.co_filename) == Path(module.__file__ or "")
    ]
    return any(_spawns(inner, module, seen) for inner in [*nested, *local])


def _fixture_codes(item: pytest.Function) -> list[types.CodeType]:
    codes = []
    for definitions in item._fixtureinfo.name2fixturedefs.values():
        code = _code_of(definitions[-1].func)
        if code is not None and Path(code.co_filename).resolve().is_relative_to(TESTS):
            codes.append(code)
    return codes


def _is_slow(item: pytest.Function) -> bool:
    try:
        relative = Path(item.path).resolve().relative_to(TESTS)
    except ValueError:  # a test collected from outside tests/ (pytest given another path)
        return False
    if relative.parts[0] in SLOW_PATHS:
        return True
    if item.originalname in SLOW_TESTS.get(relative.name, ()):
        return True
    code = _code_of(item.obj)
    if code is None:
        return False
    seen: set[types.CodeType] = set()
    return any(_spawns(candidate, item.module, seen) for candidate in [code, *_fixture_codes(item)])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if isinstance(item, pytest.Function) and _is_slow(item):
            item.add_marker(pytest.mark.slow)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under `-m "not slow"`, whole slow files are not even collected: collecting them imports
    torch and transformers, a third of the fast run's time on a busy machine."""
    if config.getoption("markexpr", "").strip() != "not slow":
        return None
    try:
        relative = collection_path.resolve().relative_to(TESTS)
    except ValueError:
        return None
    return True if relative.parts and relative.parts[0] in SLOW_PATHS else None
