"""The package's import structure: no cycles and no upward imports, function-level imports
included (they run too, only later). docs/architecture.md draws the layers checked here."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "initlint"

#: Lower numbers sit lower; a module may import its own layer or any layer below it.
#: The longest matching prefix decides; a module matching none is a front end (top layer), so
#: a new module can import anything, but nothing below may import it until it is placed here.
LAYERS = {
    # leaves: no initlint imports, or only other leaves
    "initlint": 0,
    "initlint.codes": 0,
    "initlint.errors": 0,
    "initlint.findings": 0,
    "initlint.sourcetext": 0,
    "initlint.prefilter": 0,
    "initlint.nesting": 0,
    # what the analyzer knows about libraries: plain data that config, the text pre-filter
    # and the runtime read too (it must stay free of LibCST and of the rest of analysis/)
    "initlint.analysis.knowledge": 0,
    # reading files safely, signals, a clean sys.path: standard library only
    "initlint.safety": 0,
    "initlint.roles": 0,
    # the truncated-normal std, shared by the static analysis and the runtime
    "initlint.truncated_normal": 0,
    # settings and bounds the analysis runs under
    "initlint.config": 1,
    "initlint.files": 1,
    "initlint.guard": 1,
    # the guarded parse shared by the engine and the project layer
    "initlint.parsing": 1,
    "initlint.analysis": 2,
    # the checked file's project on disk: beside the analysis, which follows names into it
    "initlint.project": 2,
    "initlint.rules": 3,
    # the engine and what it drives; the runtime verifier beside it
    "initlint.engine": 4,
    "initlint.noqa": 4,
    "initlint.parallel": 4,
    "initlint.fixes": 4,
    "initlint.notebook": 4,
    "initlint.runtime": 4,
    "initlint.reporters": 5,
    # front ends
    "initlint.cli": 6,
    "initlint.__main__": 6,
    "initlint.flake8_plugin": 6,
    "initlint.explain": 6,
    "initlint.runtime.cli": 6,
}
FRONT_END = 6

#: Cycles known at the time of writing, each as the sorted tuple of its modules; remove an
#: entry once the cycle is gone (the test fails on a stale entry too).
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def layer_of(module: str) -> int:
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in LAYERS:
            return FRONT_END if prefix == "initlint" and end < len(parts) else LAYERS[prefix]
    return FRONT_END


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, except those under `if TYPE_CHECKING:` (they never
    run, so they cannot form a cycle at import time)."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            pending.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """The initlint modules an import statement loads (a `from package import submodule` loads
    the submodule)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name.split(".")[0] == "initlint"}
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    if base.split(".")[0] != "initlint":
        return set()
    names = {f"{base}.{alias.name}" for alias in node.names}
    submodules = names & known
    return submodules if submodules else {base}


@lru_cache(maxsize=1)
def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported initlint module: line of the first import}."""
    files = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
    known = set(files)
    graph: dict[str, dict[str, int]] = {}
    for module, path in files.items():
        edges: dict[str, int] = {}
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _imports(tree):
            for target in _targets(module, path.name == "__init__.py", node, known):
                if target != module:
                    edges.setdefault(target, node.lineno)
        graph[module] = edges
    return graph


def strongly_connected(graph: dict[str, dict[str, int]]) -> list[tuple[str, ...]]:
    """Tarjan's algorithm, iterative; components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[tuple[str, ...]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        components.append(tuple(sorted(members)))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def test_no_import_cycles():
    cycles = set(strongly_connected(import_graph()))
    new = sorted(cycles - KNOWN_CYCLES)
    assert not new, "import cycles: " + "; ".join(" <-> ".join(cycle) for cycle in new)
    stale = sorted(KNOWN_CYCLES - cycles)
    assert not stale, f"KNOWN_CYCLES lists cycles that are gone, remove them: {stale}"


def test_no_upward_imports():
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)}) at line {line}"
        for module, edges in sorted(import_graph().items())
        for target, line in sorted(edges.items())
        if layer_of(target) > layer_of(module)
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_leaf_modules_import_only_leaves():
    for module, edges in sorted(import_graph().items()):
        if module != "initlint" and layer_of(module) == 0:
            above = sorted(target for target in edges if layer_of(target) > 0)
            assert not above, f"{module} is a leaf but imports {above}"


# --- the checker itself, on small made-up packages -----------------------------------------


def test_cycle_detection_finds_a_cycle_and_ignores_a_chain():
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert strongly_connected(graph) == [("a", "b", "c")]
    assert strongly_connected({"a": {"b": 1}, "b": {}}) == []


@pytest.mark.parametrize(
    ("source", "module", "is_package", "expected"),
    [
        ("from initlint import guard, noqa", "initlint.engine", False, {"initlint.guard", "initlint.noqa"}),
        ("from initlint.config import Settings", "initlint.engine", False, {"initlint.config"}),
        ("from . import interp", "initlint.analysis.stacks", False, {"initlint.analysis.interp"}),
        ("from .model import Analysis", "initlint.analysis", True, {"initlint.analysis.model"}),
        ("import initlint.rules", "initlint.cli", False, {"initlint.rules"}),
        ("import ast", "initlint.cli", False, set()),
    ],
)
def test_import_targets(source, module, is_package, expected):
    known = {"initlint.guard", "initlint.noqa", "initlint.analysis.interp", "initlint.analysis.model"}
    node = ast.parse(source).body[0]
    assert isinstance(node, (ast.Import, ast.ImportFrom))
    assert _targets(module, is_package, node, known) == expected


def test_function_level_imports_count_and_type_checking_ones_do_not():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from initlint.engine import parse\n"
        "def f():\n    from initlint.cli import main\n"
    )
    assert {node.module for node in _imports(tree) if isinstance(node, ast.ImportFrom)} == {"initlint.cli", "typing"}


def test_layers():
    assert layer_of("initlint.codes") == 0
    assert layer_of("initlint.analysis.interp") == 2
    assert layer_of("initlint.runtime.cli") == FRONT_END
    assert layer_of("initlint.runtime.trace") == 4
    assert layer_of("initlint.some_new_module") == FRONT_END
