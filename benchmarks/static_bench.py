#!/usr/bin/env python
"""How much the static check costs relative to a bare `libcst.parse_module` of the same files.

    python benchmarks/static_bench.py              # examples/ (+ .corpus/ if scripts/corpus_eval.py fetched it)
    python benchmarks/static_bench.py PATH...      # any files or folders

Prints, for each set of files: files, lines, findings, and the time of a bare LibCST parse (the
reference, measured in the same run), of the analysis, and of the whole check (analysis, rules,
positions of the reported nodes), each as a ratio to the reference. The design goal is a whole
check within 1.3x of the bare parse. Each figure is the best of three rounds.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import libcst as cst

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from initlint.analysis import analyze  # noqa: E402
from initlint.config import Settings  # noqa: E402
from initlint.engine import check_module, decode, might_define_model  # noqa: E402
from initlint.files import discover  # noqa: E402


def best_of(rounds: int, action) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(label: str, paths: list[str]) -> None:
    sources = []
    for name in discover(paths):
        try:
            text = decode(Path(name).read_bytes())
            cst.parse_module(text)
        except Exception:  # unparseable files are INI901's business, not the benchmark's
            continue
        if might_define_model(text):
            sources.append(text)
    if not sources:
        print(f"{label}: no files")
        return
    lines = sum(text.count("\n") for text in sources)
    settings = Settings()
    modules: list[cst.Module] = []

    def parse_all() -> None:
        modules.clear()
        modules.extend(cst.parse_module(text) for text in sources)

    reference = best_of(3, parse_all)
    analysis = best_of(3, lambda: [analyze(module, None, text) for module, text in zip(modules, sources)])
    findings: list = []

    def check_all() -> None:
        findings.clear()
        for module, text in zip(modules, sources):
            findings.extend(check_module(module, "bench.py", settings, text))

    check = best_of(3, check_all)
    print(
        f"{label}: {len(sources)} files, {lines} lines, {len(findings)} findings\n"
        f"  bare libcst.parse_module {reference:8.3f} s   (reference, 1.00x)\n"
        f"  analysis                 {analysis:8.3f} s   ({analysis / reference:.2f}x)\n"
        f"  analysis+rules+positions {check:8.3f} s   ({check / reference:.2f}x)\n"
        f"  parse + check            {reference + check:8.3f} s   ({(reference + check) / reference:.2f}x; goal <= 1.30x)"
    )


def main(argv: list[str]) -> int:
    if argv:
        measure("given paths", argv)
        return 0
    measure("examples/", [str(REPO / "examples")])
    corpus = REPO / ".corpus" / "src"
    if corpus.exists():
        for package in sorted(corpus.iterdir()):
            models = [str(p) for p in package.rglob("model*.py")] + [str(p) for p in package.rglob("modeling_*.py")]
            if models:
                measure(package.name, models[:200])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
