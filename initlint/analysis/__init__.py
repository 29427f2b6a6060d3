"""The shared analysis, one stage after another over one parse:

    source -> index (imports, classes, functions)                   `index.py`
           -> model trees + init plan (abstract interpretation)     `interp.py`, `construction.py`,
              with Python, PyTorch and init-op semantics             `python_semantics.py`,
                                                                     `torch_semantics.py`, `init_ops.py`
           -> residual writers (data flow through forward)          `residual.py`, `flow.py`
           -> stacks: blocks, depth, adds, writers with their plan  `stacks.py`, `scaling.py`

Numbers are symbolic (`values.py`); positions are computed only for reported nodes
(`positions.py`). Rules read the resulting `Analysis`; they never walk the syntax tree again.
"""

from __future__ import annotations

from initlint.analysis.model import Analysis
from initlint.analysis.stacks import analyze, static_summary

__all__ = ["Analysis", "analyze", "static_summary"]
