"""The shared analysis, one stage after another over one parse:

    source -> index (imports, classes, functions)                  `index.py`
           -> model trees + init plan (abstract interpretation)    `interp.py`
           -> residual writers (data flow through forward)         `residual.py`
           -> stacks: blocks, depth, adds, writers with their plan `stacks.py`

Rules read the resulting `Analysis`; they never walk the syntax tree again.
"""

from __future__ import annotations

from initlint.analysis.model import Analysis
from initlint.analysis.stacks import analyze, static_summary

__all__ = ["Analysis", "analyze", "static_summary"]
