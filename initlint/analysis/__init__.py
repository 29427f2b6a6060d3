"""The shared analysis, one pass per stage over one parse:

    source -> index (classes, layers, forward data flow)     `index.py`
           -> model tree (instances the root classes build)  `tree.py`
           -> residual writers (data flow through forward)   `residual.py`
           -> init plan (what each parameter gets, in order) `plan.py`

Rules read the resulting `Analysis`; they never walk the syntax tree again.
"""

from __future__ import annotations

import libcst as cst

from initlint.analysis.model import Analysis
from initlint.config import AnalysisOptions

__all__ = ["Analysis", "analyze"]


def analyze(module: cst.Module, options: AnalysisOptions | None = None) -> Analysis:
    options = options or AnalysisOptions()
    return Analysis(module=module, options=options)
