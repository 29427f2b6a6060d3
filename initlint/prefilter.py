"""The cheap text test that keeps most files away from the parser.

Kept free of LibCST so the flake8 plugin, which flake8 runs on every file of every project,
can skip a file without importing the parser at all.
"""

from __future__ import annotations

#: Files without any of these never reach the parser: they cannot define a torch model.
TEXT_MARKERS = ("torch", "nn.", "Module", "PreTrainedModel")


def might_define_model(source: str) -> bool:
    return any(marker in source for marker in TEXT_MARKERS)
