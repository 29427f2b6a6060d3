"""The cheap text test that keeps most files away from the parser.

A file is parsed only if it imports torch or a known model library (`import torch`,
`from transformers import ...`, `import os, torch`), or defines a class on a known model base
(`class Block(nn.Module)`, `class X(PreTrainedModel)` imported relatively inside a library).
Both lists come from the knowledge registry. Words that merely contain a marker
(`ModuleNotFoundError`, `ModuleType`, `conn.`, `torchvision`) do not count.

Kept free of LibCST so the flake8 plugin, which flake8 runs on every file of every project,
can skip a file without importing the parser at all.
"""

from __future__ import annotations

import re

from initlint.analysis.knowledge import REGISTRY

#: Top-level packages whose import marks model code.
TEXT_MARKERS = REGISTRY.import_roots()


def _alternatives(names: frozenset[str] | tuple[str, ...]) -> str:
    return "|".join(sorted(map(re.escape, names)))


_ROOTS = _alternatives(TEXT_MARKERS)
#: `import os, torch as T` names torch after other modules; `from torch import nn`.
_IMPORTED_BEFORE = r"(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*"
_MODEL_IMPORT = re.compile(rf"^[ \t]*(?:from[ \t]+|import[ \t]+{_IMPORTED_BEFORE})(?:{_ROOTS})\b", re.M)
_BASE_NAMES = REGISTRY.pretrained_class_names() | {base.rsplit(".", 1)[-1] for base in REGISTRY.module_bases()}
_MODEL_CLASS = re.compile(
    rf"^[ \t]*class[ \t]+\w+[ \t]*\([^)]*?\b(?:{_alternatives(frozenset(_BASE_NAMES))})\b[ \t]*[,)\]]", re.M
)


def might_define_model(source: str) -> bool:
    # Substring tests (C speed) decide most files before a regex scans any line.
    if any(root in source for root in TEXT_MARKERS) and _MODEL_IMPORT.search(source) is not None:
        return True
    return any(name in source for name in _BASE_NAMES) and _MODEL_CLASS.search(source) is not None
