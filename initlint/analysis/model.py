"""Data types of the shared analysis (filled in by the pipeline stages)."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from initlint.config import AnalysisOptions


@dataclass
class Analysis:
    module: cst.Module
    options: AnalysisOptions
    stacks: list = field(default_factory=list)
    roots: list = field(default_factory=list)
