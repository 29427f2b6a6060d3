#!/usr/bin/env python
"""Precision and recall on model files of libraries initlint was never tuned on.

    python scripts/recall_eval.py                       # download if needed, lint, score dev and held-out
    python scripts/recall_eval.py --show-held-out       # also list the held-out misses (after a change!)

`scripts/recall_labels.json` holds, per file, what reading the pinned source found (pre-norm or not,
the residual writers, whether their depth scaling is right, wrong, missing or deliberate) and the
findings a correct analyzer reports there. Files listed under a `held_out_*` key (the held-out
sets) are scored like the others, as their own part, but their individual misses and false alarms
are hidden unless asked for: look at them only once a change is done, to see whether it
generalises beyond the files it was made against. Files under `seen_2` to `seen_6`, `opened_8` and `opened_9`
(former held-out sets, opened to developers after they were scored) and `seen_8` (labelled by
reading, then fixed against) and `seen_10` (the same, in round 8) are their own parts with their
misses shown; every other file is `dev`.

A finding counts as a true positive when a label has its code and line; every other INI0xx finding
in a labelled file is a false positive; every label not reported is a miss.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus_eval  # noqa: E402  (the pinned packages and their download live there)

DEFAULT_LABELS = corpus_eval.REPO / "scripts" / "recall_labels.json"
#: Label-file keys listing held-out files; each is scored as a part of the same name.
HELD_OUT_PARTS = ("held_out_7", "held_out_16", "held_out_17")
#: Label-file keys of former held-out sets, scored on their own with their misses shown.
SEEN_PARTS = (
    "seen_2",
    "seen_3",
    "seen_4",
    "seen_5",
    "seen_6",
    "seen_8",
    "opened_8",
    "opened_9",
    "seen_10",
    "seen_10b",
    "seen_11a",
    "opened_10",
    "seen_11b",
    "opened_11",
    "seen_12b",
    "seen_12a",
    "opened_12",
    "seen_13b",
    "opened_10n",
    "seen_13a",
    "opened_13",
    "seen_14a",
    "opened_11n",
    "seen_14b",
    "opened_14",
    "opened_15",
    "seen_15a",
    "seen_15b",
    "seen_15c",
    "seen_16a",
    "seen_16b",
)


def score(labels: dict, corpus: Path) -> dict[str, dict]:
    from initlint.config import Settings
    from initlint.engine import lint_file

    held_out = {key: name for name in HELD_OUT_PARTS + SEEN_PARTS for key in labels.get(name, ())}
    wanted = {entry["package"] for entry in labels["files"]}
    packages = [p for p in corpus_eval.PACKAGES_ALL if p.name in wanted]
    download_dir = corpus / "dl"
    corpus_eval.download(packages, download_dir)
    roots = {p.name: corpus_eval.unpack(p, download_dir, corpus / "src") for p in packages}
    parts: dict[str, dict] = {}
    for entry in labels["files"]:
        key = f"{entry['package']}:{entry['path']}"
        part = parts.setdefault(held_out.get(key, "dev"), {"files": 0, "by_code": {}, "notes": []})
        part["files"] += 1
        expected = {(label["code"], label["line"]): label for label in entry["expected"]}
        # Right if reported, no miss if not (a writer of a second stream the label names).
        accepted = {(label["code"], label["line"]) for label in entry.get("accepted", ())}
        reported = {
            (f.code, f.line): f
            for f in lint_file(roots[entry["package"]] / entry["path"], Settings(select=("INI0",)))
            if f.code.startswith("INI0")
        }
        for code in {c for c, _ in expected} | {c for c, _ in reported}:
            counts = part["by_code"].setdefault(code, Counter())
            counts["tp"] += sum(1 for k in reported if k[0] == code and (k in expected or k in accepted))
            counts["fp"] += sum(1 for k in reported if k[0] == code and k not in expected and k not in accepted)
            counts["fn"] += sum(1 for k in expected if k[0] == code and k not in reported)
        for k in sorted(set(expected) - set(reported)):
            part["notes"].append(f"miss {key}:{k[1]} {k[0]} {expected[k]['writer']} ({entry['scaling']})")
        for k in sorted(set(reported) - set(expected) - accepted):
            part["notes"].append(f"false alarm {key}:{k[1]} {k[0]} {reported[k].message[:100]}")
    return parts


def ratio(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:.2f}" if denominator else "n/a"


def report(parts: dict[str, dict], show_held_out: bool) -> None:
    for name in ("dev", *SEEN_PARTS, *HELD_OUT_PARTS):
        part = parts.get(name)
        if part is None:
            continue
        total = sum(part["by_code"].values(), Counter())
        tp, fp, fn = total["tp"], total["fp"], total["fn"]
        print(
            f"== {name}: {part['files']} files, labelled findings {tp + fn}, reported {tp + fp}:"
            f" TP {tp}, FP {fp}, missed {fn}; precision {ratio(tp, tp + fp)}, recall {ratio(tp, tp + fn)}"
        )
        for code, counts in sorted(part["by_code"].items()):
            tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
            print(
                f"   {code}: TP {tp}, FP {fp}, missed {fn}; precision {ratio(tp, tp + fp)}, recall {ratio(tp, tp + fn)}"
            )
        if name not in HELD_OUT_PARTS or show_held_out:
            for note in part["notes"]:
                print(f"   {note}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=corpus_eval.DEFAULT_CORPUS)
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--show-held-out", action="store_true", help="list held-out misses and false alarms")
    args = parser.parse_args(argv)
    labels = json.loads(args.labels.read_text(encoding="utf-8"))
    report(score(labels, args.corpus), args.show_held_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
