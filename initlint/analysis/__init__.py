"""The shared analysis, one stage after another over one parse:

    source -> index (imports, classes, functions)                   `index.py`
           -> model trees + init plan (abstract interpretation)     `interp*.py`, `construction.py`,
              with Python, PyTorch and init-op semantics             `python_semantics.py`,
                                                                     `torch_semantics.py` (and the
                                                                     modules they draw on), `init_ops.py`
              reading what library APIs do from the registry         `knowledge/`
           -> residual writers (data flow through forward)          `residual.py`, `forward_*.py`,
                                                                     `flow.py`
           -> stacks: blocks, depth, adds, writers with their plan  `stacks.py`, `scaling.py`
           -> per-writer facts the rules and `explain` read         `facts.py`

The interpreter and the forward reader walk statements with one walker (`statements.py`).

Numbers are symbolic (`values.py`); positions are computed only for reported nodes
(`positions.py`). Rules read the resulting `Analysis`; they never walk the syntax tree again.

The names below load on first use, so `initlint.analysis.knowledge` can be imported (by the
text pre-filter) without importing LibCST.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.model import Analysis
    from initlint.analysis.stacks import analyze
    from initlint.analysis.summary import static_summary

__all__ = ["Analysis", "analyze", "static_summary"]


def __getattr__(name: str) -> Any:
    if name == "Analysis":
        from initlint.analysis.model import Analysis

        return Analysis
    if name == "analyze":
        from initlint.analysis.stacks import analyze

        return analyze
    if name == "static_summary":
        from initlint.analysis.summary import static_summary

        return static_summary
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
