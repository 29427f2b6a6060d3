#!/usr/bin/env python
"""What the project layer costs on real multi-file projects, relative to parsing their files.

    python benchmarks/project_bench.py                    # litgpt 0.5.13 and torchtitan 0.3.0
    python benchmarks/project_bench.py --package litgpt   # one of them
    python benchmarks/project_bench.py --corpus DIR       # where the wheels go (default .corpus/)

The pinned wheels are downloaded at run time with pip (as scripts/corpus_eval.py does, into the
git-ignored `.corpus/`) and unpacked; their code is never committed. For each package it prints
CPU seconds (the fastest round) and the ratio to the reference (the median over rounds of the
ratio within a round, each round timing the reference next to every figure):

* the reference: a bare `libcst.parse_module` of every file, in the same run, each tree dropped
  before the next parse: the sum of the files' parses. (Until round 14 the trees were kept in a
  list: with the collector's default thresholds, its full collections then walked the growing
  heap of trees, 30-55% of that figure on torchtitan and most of its spread between rounds, a
  cost of the list, not of parsing, that the engine's run does not pay (it runs under
  `parallel.collecting_less`). That figure is still printed, next to the reference);
* every import of every file resolved (`Project.imports_of`), with a cold disk cache (an empty
  folder: every file is parsed, indexed and summarised once) and with a warm one (a fresh
  Project reading the summaries the cold round wrote);
* the same plus loading the definition (syntax tree, ClassInfo) of every import that lands on a
  class or function of the project;
* a whole-project check as the engine will run it: every file's parse taken from the project
  (`Project.parsed_file`, shared with the files that import it), then its imports and their
  definitions; the parses are counted in, so this is the figure for the 1.5x target;
* the callers of every init entry point (`Project.find_calls`), cold and warm;
* the whole check through the engine (`engine.lint_files` over every file: parse, analysis with
  the project wired in, rules), cold and warm, next to the same engine run with
  `project-analysis = false` (each file on its own, as before the project layer).

The target for a whole-project check is at most 1.5x the sum of the parses.
    python benchmarks/project_bench.py --src DIR           # any unpacked project folder
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import libcst as cst

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "scripts")]

from corpus_eval import PACKAGES, download, unpack  # noqa: E402
from initlint.engine import decode  # noqa: E402
from initlint.project import CLASS, ENTRY_POINTS, FUNCTION, Project  # noqa: E402

BENCHED = ("litgpt", "torchtitan")


def cpu_seconds(action):
    """(CPU seconds of this process, what `action` returned). CPU time, not wall time: on a
    shared machine the wall time of the same work varied 2x from round to round."""
    gc.collect()  # the garbage of the previous figure is not charged to this one
    start = time.process_time()
    result = action()
    return time.process_time() - start, result


#: The reference as it was timed until round 14 (see the docstring).
KEPT = "bare parses, every tree kept in a list"


def parse_each(sources: list[str]) -> None:
    """The reference: every file parsed, its tree dropped before the next parse."""
    for text in sources:
        cst.parse_module(text)


def resolve_all(project: Project, definitions: bool) -> tuple[object, Counter]:
    kinds: Counter = Counter()
    for path in project.python_files():
        module = project.module_name(path)
        if module is None:
            continue
        for symbol in project.imports_of(module).values():
            kinds[symbol.kind] += 1
            if definitions and symbol.kind in (CLASS, FUNCTION):
                project.with_definition(symbol)
    # The counters, not the Project: its trees must be freed inside the round that made them.
    return project.store.counters, kinds


def whole_project(root: Path, cache: Path) -> tuple[object, Counter]:
    """A check of every file as the engine will run it: each file's parse taken from the project
    (shared with the files that import it), its imports resolved, their definitions loaded."""
    project = Project(root, cache_folder=cache)
    for path in project.python_files():
        project.parsed_file(path)
    return resolve_all(project, True)


def callers_all(root: Path, cache: Path) -> int:
    project = Project(root, cache_folder=cache)
    return sum(len(project.find_calls(name)) for name in ENTRY_POINTS)


def engine_check(root: Path, cache: Path | None, project_analysis: bool = True) -> tuple[int, int]:
    """The engine over every file of the project, as `initlint check <root>` runs it: (files, findings)."""
    from initlint.config import Settings
    from initlint.engine import lint_files
    from initlint.project import resolve

    resolve._PROJECTS.clear()  # a fresh run: no project snapshot kept from the previous round
    settings = Settings(project_analysis=project_analysis, cache_dir=str(cache) if cache is not None else "")
    files = [str(path) for path in Project(root, cache_folder=None).python_files()]
    return len(files), len(lint_files(files, settings).findings)


def resolve_in(root: Path, cache: Path, definitions: bool) -> tuple[object, Counter]:
    return resolve_all(Project(root, cache_folder=cache), definitions)


def on_empty_cache(action, root: Path):
    folder = Path(tempfile.mkdtemp(prefix="initlint-bench-"))
    try:
        return action(root, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def scenarios(root: Path, warm: Path) -> list[tuple[str, object]]:
    rows = []
    for what, action in [
        ("resolve every import", lambda r, c: resolve_in(r, c, False)),
        ("+ load definitions", lambda r, c: resolve_in(r, c, True)),
        ("whole project, every file", whole_project),
        ("callers of init entry points", callers_all),
        ("engine check, project analysis", engine_check),
    ]:
        rows.append((f"{what}, cold cache", lambda action=action: on_empty_cache(action, root)))
        rows.append((f"{what}, warm cache", lambda action=action: action(root, warm)))
    rows.append(("engine check, each file alone", lambda: engine_check(root, None, project_analysis=False)))
    return rows


def measure(label: str, root: Path, rounds: int) -> None:
    # An unpacked wheel has no project marker: the engine would take the repository around
    # `.corpus/` for its project. A marker makes the package its own project, as it is upstream.
    marker = root / "pyproject.toml"
    if not marker.exists():
        marker.write_text(f"# initlint benchmark: {label} is a project of its own\n", encoding="utf-8")
    files = Project(root, cache_folder=None).python_files()
    sources = [decode(path.read_bytes()) for path in files]
    warm = Path(tempfile.mkdtemp(prefix="initlint-bench-"))
    times: dict[str, list[float]] = {}
    results: dict[str, object] = {}
    try:
        resolve_in(root, warm, True)  # fills the warm cache
        # Each round times the reference next to every scenario: ratios within a round share the load.
        for _ in range(rounds):
            times.setdefault("reference", []).append(cpu_seconds(lambda: parse_each(sources))[0])
            times.setdefault(KEPT, []).append(cpu_seconds(lambda: [cst.parse_module(text) for text in sources])[0])
            for name, action in scenarios(root, warm):
                seconds, results[name] = cpu_seconds(action)
                times.setdefault(name, []).append(seconds)
    finally:
        shutil.rmtree(warm, ignore_errors=True)
    kinds = results["resolve every import, cold cache"][1]
    print(
        f"{label}: {len(files)} files, {sum(text.count(chr(10)) for text in sources)} lines, "
        f"{sum(kinds.values())} imports ({', '.join(f'{n} {kind}' for kind, n in kinds.most_common())})"
    )
    reference = times.pop("reference")
    print(f"  {'bare libcst.parse_module of every file':42} {min(reference):7.3f} s  (reference, 1.00x)")
    kept = times[KEPT]
    for name, seconds in times.items():
        ratio = statistics.median(s / r for s, r in zip(seconds, reference))
        before = statistics.median(s / r for s, r in zip(seconds, kept))
        detail = _detail(results[name]) if name in results else ""
        print(f"  {name:42} {min(seconds):7.3f} s  ({ratio:.2f}x; {before:.2f}x of the kept trees){detail}")


def _detail(result) -> str:
    if isinstance(result, tuple) and isinstance(result[0], int):
        return f"  {result[0]} files, {result[1]} findings"
    if isinstance(result, tuple):
        counters = result[0]
        return f"  parses {counters.parses}, summaries from disk {counters.disk_hits}"
    return f"  {result} call sites"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO / ".corpus", help="download and unpack folder")
    parser.add_argument("--package", choices=BENCHED, help="only this package")
    parser.add_argument("--src", type=Path, help="an unpacked project folder to measure instead of the pinned wheels")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per figure (default 3)")
    options = parser.parse_args(argv)
    if options.src is not None:
        measure(str(options.src), options.src, options.rounds)
        return 0
    packages = [p for p in PACKAGES if p.name in BENCHED and options.package in (None, p.name)]
    download(packages, options.corpus / "dl")
    cst.parse_module("import torch\n")  # import and first-call costs are not charged to a package
    for package in packages:
        measure(package.requirement, unpack(package, options.corpus / "dl", options.corpus / "src"), options.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
