"""One stream through several block lists: the residual adds N counts are all those into it.

A root's `forward` may hand the stream from one list of blocks to the next (`for blk in
self.encoder: x = blk(x)` and then `for blk in self.decoder: x = blk(x)`): each list's writers
add into the same stream, so the depth factor owed is over the adds of every list. A list run
over another value (an encoder's output, handed to the decoder as cross-attention memory) is
another stream. What the loops carry is read from the code: the name a loop's call both takes
and rebinds; a name rebound between two loops from something not computed from it starts a new
stream.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import libcst as cst

from initlint.analysis.facts import adds_in
from initlint.analysis.index import ModuleIndex
from initlint.analysis.model import ModuleNode, Stack

#: (container attribute, carried name) for a loop; (None, name) where the name is rebound afresh.
_Event = tuple[str | None, str]


def join_streams(root: ModuleNode, stacks: list[Stack], index: ModuleIndex) -> None:
    """Mark the stacks of `root` that one stream runs through in turn with N over them all."""
    found = index.find_method(root.cls, "forward") if root.cls is not None else None
    params = found[1].params.params if found is not None else ()
    if found is None or not params:
        return
    by_container = {stack.container.name: stack for stack in stacks if stack.container.parent is root}
    if len(by_container) < 2 or len(by_container) != len([s for s in stacks if s.container.parent is root]):
        return  # (a list holding several kinds of block: its share of N is counted elsewhere)
    for chain in _chains(list(_events(found[1].body.body, params[0].name.value))):
        joined = [by_container[name] for name in dict.fromkeys(chain) if name in by_container]
        if len(joined) < 2 or any(not stack.default_adds for stack in joined):
            continue
        total = " + ".join(adds_in(stack) for stack in joined)
        for stack in joined:
            stack.stream = tuple(other.container.path for other in joined)
            stack.stream_adds = total


def _chains(events: list[_Event]) -> list[list[str]]:
    """The containers each stream runs through, in order."""
    open_chains: dict[str, list[str]] = {}
    chains: list[list[str]] = []
    for container, name in events:
        if container is None:
            chains.extend([open_chains.pop(name)] if name in open_chains else [])
        else:
            open_chains.setdefault(name, []).append(container)
    return chains + list(open_chains.values())


def _events(body: Sequence[cst.CSTNode], self_name: str) -> Iterator[_Event]:
    for stmt in body:
        if isinstance(stmt, cst.For):
            container = _container(stmt.iter, self_name)
            carried = _carried(stmt, container) if container is not None else None
            if container is not None and carried is not None:
                yield container, carried
                continue
            yield from _events(stmt.body.body, self_name)
        elif isinstance(stmt, cst.SimpleStatementLine):
            yield from _rebound(stmt)
        elif isinstance(stmt, (cst.If, cst.With, cst.Try, cst.While)):
            # (An arm that may not run still runs on the same stream when it does.)
            for inner in _suites(stmt):
                yield from _events(inner, self_name)


def _suites(stmt: cst.If | cst.With | cst.Try | cst.While) -> Iterator[Sequence[cst.CSTNode]]:
    yield stmt.body.body
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):
        yield [orelse]
    elif isinstance(orelse, cst.Else):
        yield orelse.body.body
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body.body


def _container(node: cst.BaseExpression, self_name: str) -> str | None:
    """`self.layers` (or `enumerate(self.layers)`): the attribute a loop walks."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "enumerate":
        node = node.args[0].value if node.args else node
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self_name:
        return node.attr.value
    return None


def _carried(loop: cst.For, container: str) -> str | None:
    """The name the loop's block call takes and rebinds (`x = blk(x, mask)`, `x, _ = blk(x)`)."""
    blocks = {name.value for name in _names(loop.target)}
    for line in loop.body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Call):
                continue
            if not _calls_block(small.value.func, blocks):
                continue
            taken = {name.value for arg in small.value.args for name in _names(arg.value)}
            for target in small.targets:
                bound = [name.value for name in _names(target.target) if name.value in taken]
                if bound:
                    return bound[0]
    return None


def _calls_block(func: cst.BaseExpression, blocks: set[str]) -> bool:
    """`blk(...)` or `blk.forward(...)` for a name the loop binds to the block."""
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return isinstance(func, cst.Name) and func.value in blocks


def _rebound(line: cst.SimpleStatementLine) -> Iterator[_Event]:
    """Names an assignment binds from a value not computed from them: another stream."""
    for small in line.body:
        if isinstance(small, cst.Assign):
            read = {name.value for name in _names(small.value)}
            for target in small.targets:
                for name in _names(target.target):
                    if name.value not in read:
                        yield None, name.value


def _names(node: cst.CSTNode) -> list[cst.Name]:
    """Every plain name in an expression (an attribute's base included, not its attribute)."""
    found: list[cst.Name] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)
            return False

    node.visit(_Collect())
    return found
