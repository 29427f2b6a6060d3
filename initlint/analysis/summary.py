"""What the runtime check needs from the static analysis of a file: its root classes, the
residual writers it found and the names that carry the depth."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst

from initlint.analysis.facts import writer_pattern
from initlint.analysis.stacks import analyze


@dataclass(frozen=True)
class WriterInfo:
    class_name: str
    attr: str
    param_pattern: str
    root: str
    line: int
    found_by: str


@dataclass(frozen=True)
class StaticSummary:
    root_classes: list[str] = field(default_factory=list)
    writers: list[WriterInfo] = field(default_factory=list)
    depth_names: list[str] = field(default_factory=list)


@lru_cache(maxsize=16)
def static_summary(source: str) -> StaticSummary:
    """What the runtime check needs from the static analysis; empty when the file cannot be read.
    Cached by source text: the runtime asks once per finding, the file is analysed once."""
    try:
        analysis = analyze(cst.parse_module(source), source=source)
    except Exception:  # the static findings report parse problems; the runtime just goes on
        return StaticSummary()
    writers: list[WriterInfo] = []
    seen: set[tuple[str, str]] = set()
    # The runtime builds root classes by name; a model a builder function returns has none.
    for stack in (stack for stack in analysis.stacks if stack.root.cls is not None):
        for writer in stack.writers:
            pattern = writer_pattern(stack, writer)
            key = (stack.root.type_name, pattern)
            if key in seen:
                continue
            seen.add(key)
            created = writer.node.created_at
            line = analysis.line_of(created) if created is not None else 0
            writers.append(
                WriterInfo(
                    writer.ref.creator,
                    writer.ref.attr,
                    pattern,
                    stack.root.type_name,
                    line,
                    writer.ref.found_by,
                )
            )
    return StaticSummary(
        [root.type_name for root in analysis.roots if root.cls is not None], writers, sorted(analysis.depth_atoms)
    )
