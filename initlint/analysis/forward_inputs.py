"""Which inputs of a `forward` the residual stream comes in by (`residual.ForwardReader`)."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import libcst as cst

#: Annotations of a `forward` parameter that cannot hold a tensor.
SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})


def from_stream(params: Sequence[cst.Param]) -> list[str]:
    """The names of `forward`'s inputs from the one the stream comes in: a block handed its
    layer index first (`forward(self, layer_idx: int, x)`) takes the stream after it. Without
    annotations the stream is the first input, as `nn.Module.__call__(x)` passes it."""
    names = [param.name.value for param in params]
    for position, param in enumerate(params):
        if _may_hold_tensor(param):
            return names[position:]
    return names


def keyword_streams(func: cst.FunctionDef) -> list[str]:
    """The names of a `forward`'s keyword-only inputs, where it takes no positional one, that a
    caller must pass (no default) and that may hold a tensor: the streams it is handed by name
    (`block(text_tokens=text, image_tokens=image)`). A keyword with a default (a mask, a
    condition) is computed by the caller, not a stream; so is a required one the block only reads
    (`forward(self, *, x, mask)` that never rebinds, copies, adds or returns `mask`), where another one is
    carried on so."""
    required = [
        param.name.value for param in func.params.kwonly_params if param.default is None and _may_hold_tensor(param)
    ]
    carried = _carried_names(func)
    return [name for name in required if name in carried] or required


@lru_cache(maxsize=256)  # a walk of the function's body, asked each time its block is read
def _carried_names(func: cst.FunctionDef) -> frozenset[str]:
    finder = _CarriedNames()
    func.body.visit(finder)
    return frozenset(finder.names)


class _CarriedNames(cst.CSTVisitor):
    """The names a body carries on as a stream: rebound, copied (`residual = x`), an operand of
    `+`, or returned."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Name):
            self.names.add(node.value.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._collect(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._collect(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._collect(node.target)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Add):
            self._collect(node.left)
            self._collect(node.right)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._collect(node.value)

    def _collect(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._collect(element.value)


def _may_hold_tensor(param: cst.Param) -> bool:
    annotation = param.annotation.annotation if param.annotation is not None else None
    return not (isinstance(annotation, cst.Name) and annotation.value in SCALAR_ANNOTATIONS)


@lru_cache(maxsize=256)  # a walk of the function, asked each time its block is read
def carried_streams(func: cst.FunctionDef) -> frozenset[str]:
    """The inputs a `forward` adds into and hands back: `pair = pair + self.opm(norm(x))` and
    `return x, pair`. Handed on from block to block, such an input is a residual stream of its
    own beside the first (a pair representation beside the atom one), not a value computed by
    the caller."""
    finder = _Carried()
    func.body.visit(finder)
    return frozenset(finder.added & finder.returned)


class _Carried(cst.CSTVisitor):
    def __init__(self) -> None:
        self.added: set[str] = set()
        self.returned: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # (a function defined inside hands back its own values)

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
                operands = (value.left, value.right)
                if any(isinstance(side, cst.Name) and side.value == name for side in operands):
                    self.added.add(name)
            elif _own_module_call_on(value, name):
                self.added.add(name)  # `pair = self.update(pair)`: a module that may add into it

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, cst.AddAssign) and isinstance(node.target, cst.Name):
            self.added.add(node.target.value)

    def visit_Return(self, node: cst.Return) -> None:
        if isinstance(node.value, cst.Tuple):
            self.returned |= {item.value.value for item in node.value.elements if isinstance(item.value, cst.Name)}


def _own_module_call_on(value: cst.BaseExpression, name: str) -> bool:
    """`self.update(pair)`: a module of the block called on the value alone."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and isinstance(value.func.value, cst.Name)
        and value.func.value.value == "self"
        and len(value.args) == 1
        and not value.args[0].keyword
        and not value.args[0].star
        and isinstance(value.args[0].value, cst.Name)
        and value.args[0].value.value == name
    )
