#!/usr/bin/env python
"""Run initlint's engine over a large body of real code and count its internal errors.

    python scripts/scale_run.py                          # stdlib + site-packages + model corpus
    python scripts/scale_run.py --sources stdlib --limit 200 --jobs 2
    python scripts/scale_run.py --json scale.jsonl       # also every file's figures, as they come

Sources: Python's standard library, this interpreter's site-packages, and the pinned model
corpus of `scripts/corpus_eval.py` (wheels downloaded at run time into `.corpus/`, never
committed; needs the package index once). Every `.py` file is read, decoded, parsed and
analysed with every rule selected, bypassing the text pre-filter that normally keeps files
without model markers away from the parser, so the parser and the analysis see everything.

Prints files, lines, INI901 (files initlint cannot check: syntax errors, bad encodings,
nesting beyond its bounds) with their reasons grouped, INI902 (initlint's own failures: must
be zero) each with its file, wall time, and the slowest files. Exits 1 if there is any INI902.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import sysconfig
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

#: In the order they run: the model code first, the bulk last.
SOURCES = ("corpus", "stdlib", "site-packages")


@dataclass(frozen=True)
class FileResult:
    source: str
    path: str
    lines: int
    seconds: float
    passes_prefilter: bool
    #: (code, message) of every INI901/INI902.
    tool_findings: tuple[tuple[str, str], ...]
    #: SHA-256 of every finding (code, position, message): two runs must agree on it.
    digest: str = ""


def python_files(root: Path, skip: Path | None = None) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and (skip is None or Path(folder, d) != skip))
        found += [Path(folder, name) for name in sorted(files) if name.endswith(".py")]
    return found


def corpus_roots(corpus: Path) -> list[Path]:
    from corpus_eval import PACKAGES, download, unpack

    download_dir = corpus / "dl"
    download(list(PACKAGES), download_dir)
    return [unpack(package, download_dir, corpus / "src") for package in PACKAGES]


def collect(sources: list[str], corpus: Path) -> list[tuple[str, Path]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    purelib = Path(sysconfig.get_paths()["purelib"])
    files: list[tuple[str, Path]] = []
    if "corpus" in sources:
        files += [("corpus", path) for root in corpus_roots(corpus) for path in python_files(root)]
    if "stdlib" in sources:
        files += [("stdlib", path) for path in python_files(stdlib, skip=stdlib / "site-packages")]
    if "site-packages" in sources:
        files += [("site-packages", path) for path in python_files(purelib)]
    return files


def spread(files: list, limit: int | None) -> list:
    """`limit` files spread evenly over the whole list (deterministic)."""
    if limit is None or limit >= len(files):
        return files
    step = len(files) / limit
    return [files[int(index * step)] for index in range(limit)]


def check_one(source: str, path: str) -> FileResult:
    from initlint.config import Settings
    from initlint.engine import check_source, decode, lint_file
    from initlint.prefilter import might_define_model

    # Every rule, and noqa comments ignored: a bare one on line 1 must not hide an INI902.
    settings = Settings(select=("ALL",), ignore_noqa=True)
    start = time.perf_counter()
    findings = lint_file(path, settings)
    try:
        data = Path(path).read_bytes()
        text = decode(data)
    except (OSError, SyntaxError, ValueError, LookupError):  # lint_file reported it
        data, text = b"", ""
    passes = might_define_model(text)
    if text and not passes:  # lint_file skipped it: parse and analyse it all the same
        findings = check_source(text, path, settings)
    seconds = time.perf_counter() - start
    tool = tuple((f.code, f.message) for f in findings if f.code in ("INI901", "INI902"))
    digest = hashlib.sha256(repr(sorted((f.code, f.line, f.column, f.message) for f in findings)).encode()).hexdigest()
    return FileResult(source, path, data.count(b"\n"), seconds, passes, tool, digest)


def run(files: list[tuple[str, Path]], jobs: int, log: Path | None) -> list[FileResult]:
    """Every file's result, in order; progress on stderr, each result appended to `log` as a
    JSON line as soon as it is known (a long run stopped early keeps what it measured)."""
    results: list[FileResult] = []
    stream = log.open("w") if log else None
    start = time.perf_counter()

    def record(result: FileResult) -> None:
        results.append(result)
        if stream:
            stream.write(json.dumps(result.__dict__) + "\n")
            stream.flush()
        if len(results) % 250 == 0 or len(results) == len(files):
            elapsed = time.perf_counter() - start
            print(f"scale_run: {len(results)}/{len(files)} files, {elapsed:.0f} s", file=sys.stderr, flush=True)

    try:
        if jobs <= 1:
            for source, path in files:
                record(check_one(source, str(path)))
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for result in pool.map(check_one, [s for s, _ in files], [str(p) for _, p in files], chunksize=8):
                    record(result)
    finally:
        if stream:
            stream.close()
    return results


def report(results: list[FileResult], wall: float, jobs: int) -> int:
    print(f"{'source':<14} {'files':>7} {'lines':>10} {'parsed+analysed':>16} {'INI901':>7} {'INI902':>7} {'cpu s':>8}")
    for source in SOURCES + ("total",):
        subset = [r for r in results if source in (r.source, "total")]
        if not subset:
            continue
        counts = Counter(code for r in subset for code, _ in r.tool_findings)
        print(
            f"{source:<14} {len(subset):>7} {sum(r.lines for r in subset):>10} "
            f"{sum(1 for r in subset if 'INI901' not in dict(r.tool_findings)):>16} "
            f"{counts['INI901']:>7} {counts['INI902']:>7} {sum(r.seconds for r in subset):>8.1f}"
        )
    print(
        f"wall time {wall:.1f} s with {jobs} process(es); "
        f"{sum(r.passes_prefilter for r in results)} files pass the text pre-filter"
    )

    reasons = Counter(_reason_kind(message) for r in results for code, message in r.tool_findings if code == "INI901")
    if reasons:
        print("\nINI901 reasons:")
        for reason, count in reasons.most_common():
            print(f"  {count:>6}  {reason}")
    internal = [(r.path, message) for r in results for code, message in r.tool_findings if code == "INI902"]
    everything = hashlib.sha256("".join(f"{r.path}:{r.digest}\n" for r in results).encode()).hexdigest()
    print(f"findings digest (every finding of every file; equal runs, equal digests): {everything[:16]}")
    print(f"\nINI902 internal errors: {len(internal)}")
    for path, message in internal:
        print(f"  {path}: {message}")
    print("\nslowest files:")
    for r in sorted(results, key=lambda r: -r.seconds)[:8]:
        print(f"  {r.seconds:6.2f} s  {r.lines:>7} lines  {r.path}")
    return 1 if internal else 0


def _reason_kind(message: str) -> str:
    """Group messages: the part before the first detail."""
    for marker in (" (", ": '", ' "', " at ", " in position"):
        message = message.split(marker, 1)[0]
    return message[:90]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", default=",".join(SOURCES), help=f"comma-separated, from {', '.join(SOURCES)}")
    parser.add_argument("--limit", type=int, help="check only this many files, spread evenly")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--corpus", type=Path, default=REPO / ".corpus", help="download and unpack here (default .corpus/)"
    )
    parser.add_argument("--json", type=Path, help="write every file's figures and INI9xx findings here (JSON lines)")
    args = parser.parse_args(argv)
    sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    unknown = set(sources) - set(SOURCES)
    if unknown:
        parser.error(f"unknown source(s): {', '.join(sorted(unknown))}")

    files = spread(collect(sources, args.corpus), args.limit)
    start = time.perf_counter()
    results = run(files, args.jobs, args.json)
    return report(results, time.perf_counter() - start, args.jobs)


if __name__ == "__main__":
    raise SystemExit(main())
