#!/usr/bin/env python
"""What the project layer costs on real multi-file projects, relative to parsing their files.

    python benchmarks/project_bench.py                    # litgpt 0.5.13 and torchtitan 0.3.0
    python benchmarks/project_bench.py --package litgpt   # one of them
    python benchmarks/project_bench.py --corpus DIR       # where the wheels go (default .corpus/)

The pinned wheels are downloaded at run time with pip (as scripts/corpus_eval.py does, into the
git-ignored `.corpus/`) and unpacked; their code is never committed. For each package it prints,
each figure the best of three rounds and a ratio to the reference:

* the reference: a bare `libcst.parse_module` of every file, in the same run;
* every import of every file resolved (`Project.imports_of`), with a cold disk cache (an empty
  folder: every file is parsed, indexed and summarised once) and with a warm one (a fresh
  Project reading the summaries the cold round wrote);
* the same plus loading the definition (syntax tree, ClassInfo) of every import that lands on a
  class or function of the project;
* a whole-project check as the engine will run it: every file's parse taken from the project
  (`Project.parsed_file`, shared with the files that import it), then its imports and their
  definitions; the parses are counted in, so this is the figure for the 1.5x target;
* the callers of every init entry point (`Project.find_calls`), cold and warm.

The target for a whole-project check is at most 1.5x the sum of the parses.
"""

from __future__ import annotations

import argparse
import shutil
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


def best_of(rounds: int, action):
    """(seconds of the fastest round, what the last round returned)."""
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return min(times), result


def resolve_all(project: Project, definitions: bool) -> tuple[Project, Counter]:
    kinds: Counter = Counter()
    for path in project.python_files():
        module = project.module_name(path)
        if module is None:
            continue
        for symbol in project.imports_of(module).values():
            kinds[symbol.kind] += 1
            if definitions and symbol.kind in (CLASS, FUNCTION):
                project.with_definition(symbol)
    return project, kinds


def whole_project(root: Path, cache: Path) -> tuple[Project, Counter]:
    """A check of every file as the engine will run it: each file's parse taken from the project
    (shared with the files that import it), its imports resolved, their definitions loaded."""
    project = Project(root, cache_folder=cache)
    for path in project.python_files():
        project.parsed_file(path)
    return resolve_all(project, True)


def callers_all(root: Path, cache: Path) -> int:
    project = Project(root, cache_folder=cache)
    return sum(len(project.find_calls(name)) for name in ENTRY_POINTS)


def resolve_in(root: Path, cache: Path, definitions: bool) -> tuple[Project, Counter]:
    return resolve_all(Project(root, cache_folder=cache), definitions)


def cold(action, root: Path, *args):
    """`action` on an empty cache folder each round."""

    def fresh():
        folder = Path(tempfile.mkdtemp(prefix="initlint-bench-"))
        try:
            return action(root, folder, *args)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return best_of(3, fresh)


def measure(label: str, root: Path) -> None:
    files = Project(root, cache_folder=None).python_files()
    sources = [decode(path.read_bytes()) for path in files]
    reference, _ = best_of(3, lambda: [cst.parse_module(text) for text in sources])
    warm_folder = Path(tempfile.mkdtemp(prefix="initlint-bench-"))
    try:
        resolve_in(root, warm_folder, True)  # fills the warm cache
        rows = [
            ("resolve every import, cold cache", cold(resolve_in, root, False)),
            ("resolve every import, warm cache", best_of(3, lambda: resolve_in(root, warm_folder, False))),
            ("+ load definitions, cold cache", cold(resolve_in, root, True)),
            ("+ load definitions, warm cache", best_of(3, lambda: resolve_in(root, warm_folder, True))),
            ("whole project, every file, cold cache", cold(whole_project, root)),
            ("whole project, every file, warm cache", best_of(3, lambda: whole_project(root, warm_folder))),
            ("callers of init entry points, cold", cold(callers_all, root)),
            ("callers of init entry points, warm", best_of(3, lambda: callers_all(root, warm_folder))),
        ]
    finally:
        shutil.rmtree(warm_folder, ignore_errors=True)
    kinds = rows[0][1][1][1]
    print(f"{label}: {len(files)} files, {sum(text.count(chr(10)) for text in sources)} lines, "
          f"{sum(kinds.values())} imports ({', '.join(f'{n} {kind}' for kind, n in kinds.most_common())})")
    print(f"  {'bare libcst.parse_module of every file':40} {reference:7.3f} s  (reference, 1.00x)")
    for name, (seconds, result) in rows:
        print(f"  {name:40} {seconds:7.3f} s  ({seconds / reference:.2f}x){_detail(result)}")


def _detail(result) -> str:
    if isinstance(result, tuple):
        counters = result[0].store.counters
        return f"  parses {counters.parses}, summaries from disk {counters.disk_hits}"
    return f"  {result} call sites"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO / ".corpus", help="download and unpack folder")
    parser.add_argument("--package", choices=BENCHED, help="only this package")
    options = parser.parse_args(argv)
    packages = [p for p in PACKAGES if p.name in BENCHED and options.package in (None, p.name)]
    download(packages, options.corpus / "dl")
    cst.parse_module("import torch\n")  # import and first-call costs are not charged to a package
    for package in packages:
        measure(package.requirement, unpack(package, options.corpus / "dl", options.corpus / "src"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
