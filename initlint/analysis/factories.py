"""Factories of a class: its class or static methods that build and return an instance of it.

A model whose `__init__` is handed its parts (`def __init__(self, embed, layers)`) is assembled
by such a factory (`@classmethod def from_config(cls, config): ... return cls(embed, layers)`);
`construction.ModelBuilder.build_factory_root` builds the model through it.
"""

from __future__ import annotations

import libcst as cst

from initlint.analysis.abstract import ClassRef, FuncRef
from initlint.analysis.cst_walk import walk
from initlint.analysis.index import ClassInfo


def factory_ref(cls: ClassInfo, func: cst.FunctionDef) -> FuncRef | None:
    """A class or static method of `cls` that returns a new instance of it (`return cls(...)`,
    `return Model(...)`), bound as a call on the class binds it."""
    decorators = {d.decorator.value for d in func.decorators if isinstance(d.decorator, cst.Name)}
    if "classmethod" in decorators and func.params.params:
        ref, names = FuncRef(func, cls, ClassRef(cls)), {cls.name, func.params.params[0].name.value}
    elif "staticmethod" in decorators:
        ref, names = FuncRef(func), {cls.name}
    else:
        return None
    finder = _ReturnedCalls()
    walk(func.body, finder)
    return ref if finder.names & names else None


class _ReturnedCalls(cst.CSTVisitor):
    """The plain names a function's own `return` statements call (`return cls(embed, layers)`)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name):
            self.names.add(node.value.func.value)
