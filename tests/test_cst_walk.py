"""`cst_walk.walk` calls a read-only visitor's methods exactly as LibCST's own walk does."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from initlint.analysis.cst_walk import walk

SOURCE = '''
from os import *
from . import (a, b as c)
@decorate(make())
class Model(Base, metaclass=Meta):
    """Doc."""
    size: int = 3
    def forward(self, x, *args, y=f(1), **kw) -> int:
        other = f"{x}"
        label = f"{x!r:>{width}} {y=}"
        fn = lambda z: z.init_weights(depth=2)
        model = Model(cfg).to(device)
        model.apply(partial(model._init_weights, n=4))
        return [v async for v in it if v] or {k: v for k, v in d.items()}
'''


class Recorded(cst.CSTVisitor):
    """Every visit and leave, through LibCST's `on_visit` dispatch."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node)))


class Hooked(cst.CSTVisitor):
    """A few `visit_X`/`leave_X` methods, one of which stops the walk below its node."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, int]] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.events.append(("call", id(node)))

    def visit_Name(self, node: cst.Name) -> None:
        self.events.append(("name", id(node)))

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.events.append(("lambda", id(node)))
        return False

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        self.events.append(("expression", id(node)))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.events.append(("class", id(original_node)))


def _same_events(module: cst.Module) -> None:
    for kind in (Recorded, Hooked):
        theirs, ours = kind(), kind()
        module.visit(theirs)
        walk(module, ours)
        assert ours.events == theirs.events


def test_same_calls_in_the_same_order() -> None:
    _same_events(cst.parse_module(SOURCE))


def test_same_calls_on_initlint_itself() -> None:
    package = Path(__file__).resolve().parent.parent / "initlint"
    for path in sorted((package / "project").glob("*.py")):
        _same_events(cst.parse_module(path.read_text(encoding="utf-8")))
