"""A LibCST visitor's walk without LibCST's rebuild of every node it walks.

`node.visit(visitor)` builds each walked node again from its visited children, validating each
(a transformer's contract, paid by read-only visitors too): walking a large class cost several
times reading it. `walk` calls the same `visit_*` and `leave_*` methods in the same order (each
node's fields in the order LibCST visits them, learnt once per node type from LibCST itself), and
builds nothing. Attribute callbacks (`visit_Call_func`) are not called.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

#: per node type: its fields in LibCST's visiting order, and the fields LibCST skipped when they
#: were learnt (a `None` it may not visit: an f-string part without a format spec)
Hook = Callable[[Any, Any], Any]

_LAYOUT: dict[type[cst.CSTNode], tuple[tuple[str, ...], tuple[str, ...]]] = {}


class _FieldRecorder(cst.CSTVisitor):
    """Notes the fields LibCST visits, in its order, without going below them."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)


def field_order(node: cst.CSTNode) -> tuple[str, ...]:
    """The fields of `node` in the order LibCST's own walk visits them: one fixed order per node
    type, learnt again from a node that holds a field the type's first node left empty."""
    layout = _LAYOUT.get(type(node))
    if layout is None or layout[1] and any(getattr(node, name) not in (None, ()) for name in layout[1]):
        layout = _LAYOUT[type(node)] = _learn(node)
    return layout[0]


def _learn(node: cst.CSTNode) -> tuple[tuple[str, ...], tuple[str, ...]]:
    recorder = _FieldRecorder()
    node._visit_and_replace_children(recorder)
    visited = tuple(dict.fromkeys(recorder.fields))
    skipped = tuple(
        field.name
        for field in dataclasses.fields(node)
        if field.name not in visited and getattr(node, field.name) in (None, ())
    )
    return visited, skipped


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for a read-only visitor, building nothing."""
    kind = type(visitor)
    if kind.on_visit is cst.CSTVisitor.on_visit and kind.on_leave is cst.CSTVisitor.on_leave:
        _walk_hooks(node, visitor, kind)
    else:
        _walk_calling(node, visitor)


def _walk_hooks(node: cst.CSTNode, visitor: cst.CSTVisitor, kind: type[cst.CSTVisitor]) -> None:
    """The walk of a visitor that keeps LibCST's dispatch: its own `visit_X` and `leave_X` only
    (LibCST's are empty), looked up once per node type."""
    visit, leave = _hooks(kind, type(node))
    if visit is None or visit(visitor, node) is not False:
        for child in _children(node):
            _walk_hooks(child, visitor, kind)
    if leave is not None:
        leave(visitor, node)


def _walk_calling(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    if visitor.on_visit(node):
        for child in _children(node):
            _walk_calling(child, visitor)
    visitor.on_leave(node)


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in field_order(node):
        value = getattr(node, name)
        if isinstance(value, (tuple, list)):
            yield from (child for child in value if _is_node(type(child)))
        elif _is_node(type(value)):
            yield value


_HOOKS: dict[tuple[type[cst.CSTVisitor], type[cst.CSTNode]], tuple[Hook | None, Hook | None]] = {}


def _hooks(kind: type[cst.CSTVisitor], node: type[cst.CSTNode]) -> tuple[Hook | None, Hook | None]:
    found = _HOOKS.get((kind, node))
    if found is None:
        found = _HOOKS[kind, node] = (
            _own(kind, f"visit_{node.__name__}"),
            _own(kind, f"leave_{node.__name__}"),
        )
    return found


def _own(kind: type[cst.CSTVisitor], name: str) -> Hook | None:
    function: Hook | None = getattr(kind, name, None)
    return None if function is getattr(cst.CSTVisitor, name, None) else function


_NODE_TYPES: dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    found = _NODE_TYPES.get(kind)
    if found is None:
        found = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return found
