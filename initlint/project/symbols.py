"""What a name of a project resolves to: its kind, where it is defined, and its syntax once loaded.

Apart from `resolve.py` so that the caller search can name symbols without importing resolution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from initlint.analysis.index import ClassInfo, ModuleIndex
from initlint.project.layout import Location
from initlint.project.store import Parsed

CLASS, FUNCTION, CONSTANT, MODULE, EXTERNAL, UNKNOWN = "class", "function", "constant", "module", "external", "unknown"


@dataclass(frozen=True)
class Definition:
    """The syntax behind a resolved name, and the index of the module it is written in."""

    #: ClassDef, FunctionDef, or the value assigned to a constant
    node: cst.CSTNode
    info: ClassInfo | None
    index: ModuleIndex
    parsed: Parsed


@dataclass(frozen=True)
class Symbol:
    kind: str
    #: where it is defined (`mypkg.blocks.Block`), or the external name (`torch.nn.Linear`)
    qualified: str
    module: str | None = None
    name: str | None = None
    path: Path | None = None
    #: the part of a dotted name past a class or function: `("build",)` for `Block.build`
    attribute: tuple[str, ...] = ()
    #: why an UNKNOWN symbol could not be resolved
    reason: str = ""
    definition: Definition | None = field(default=None, compare=False, repr=False)
    #: where a MODULE symbol's module lives
    location: Location | None = field(default=None, compare=False, repr=False)


def _unknown(qualified: str, reason: str) -> Symbol:
    return Symbol(UNKNOWN, qualified, reason=reason)
