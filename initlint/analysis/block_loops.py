"""What a `forward`'s loops over a list of blocks carry from one block to the next.

A list of blocks is a depth stack only where its owner's loop hands each block what an earlier
one returned. A loop that hands each block a value built afresh in its iteration (one fusion
block per branch of a multi-scale model, each given its branch's tokens) runs them side by side:
their adds do not pile up, whatever their count. A list walked again and again inside `for _ in
range(n)` (Perceiver's one block of self-attends applied num_blocks times) adds its branches
once per run: its depth is n times its length.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from initlint.analysis.forward_bindings import walked_by_loop
from initlint.analysis.index import ModuleIndex
from initlint.analysis.model import ModuleNode, Stack
from initlint.analysis.values import Monomial


#: What a `forward` expression evaluates to, as a number (`self.config.num_blocks`), given the
#: module and the name its `self` goes by.
NumberOf = Callable[[ModuleNode, str, cst.BaseExpression], Monomial | None]


def repeat_runs(stacks: list[Stack], index: ModuleIndex, number_of: NumberOf) -> None:
    """A list its owner's `forward` walks again and again, the blocks' weights shared across the
    runs (`for _ in range(self.config.num_blocks): for layer in self.self_attends: ...`): each
    run adds the blocks' branches into the stream again, so the depth is the runs times the
    list's length."""
    for stack in stacks:
        owner, found = stack.container.parent, _owner_forward(stack.container, index)
        if owner is None or found is None:
            continue
        self_name, forward = found
        for outer in _loops(forward.body):
            count = _range_count(outer)
            inner = [
                s
                for s in outer.body.body
                if isinstance(s, cst.For) and stack.container.name in _bound_blocks(s, self_name)
            ]
            if count is None or len(inner) != 1 or _takes_fresh_values(inner[0], self_name, stack.container.name):
                continue
            runs = number_of(owner, self_name, count)
            if runs is not None:
                stack.depth = runs * stack.depth
                stack.depth_source = stack.depth.describe()
                break


def runs_side_by_side(container: ModuleNode, index: ModuleIndex) -> bool:
    """Whether the owner's `forward` applies the blocks of `container` only in loops where each
    block takes a value built afresh in its iteration, never one an earlier block returned."""
    found = _owner_forward(container, index)
    if found is None:
        return False
    (self_name, forward), attr = found, container.name
    loops: list[cst.For] = []
    uses = 0

    class _Uses(cst.CSTVisitor):
        def visit_For(self, loop: cst.For) -> None:
            if _bound_blocks(loop, self_name).get(attr):
                loops.append(loop)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            nonlocal uses
            is_self = isinstance(node.value, cst.Name) and node.value.value == self_name
            uses += is_self and node.attr.value == attr

    forward.body.visit(_Uses())
    # (A use outside those loops, `self.blocks[-1](x)` or a helper handed the list, may chain them.)
    return bool(loops) and uses == len(loops) and all(_takes_fresh_values(loop, self_name, attr) for loop in loops)


def _owner_forward(container: ModuleNode, index: ModuleIndex) -> tuple[str, cst.FunctionDef] | None:
    """The `forward` of the module owning `container`, with the name its `self` goes by."""
    owner = container.parent
    found = index.find_method(owner.cls, "forward") if owner is not None and owner.cls is not None else None
    params = found[1].params.params if found is not None else ()
    return (params[0].name.value, found[1]) if found is not None and params else None


def _loops(body: cst.CSTNode) -> list[cst.For]:
    found: list[cst.For] = []

    class _Loops(cst.CSTVisitor):
        def visit_For(self, loop: cst.For) -> None:
            found.append(loop)

    body.visit(_Loops())
    return found


def _range_count(loop: cst.For) -> cst.BaseExpression | None:
    """`n` of `for _ in range(n)` whose body never reads the count it hands out."""
    walked = loop.iter
    if not (isinstance(walked, cst.Call) and isinstance(walked.func, cst.Name) and walked.func.value == "range"):
        return None
    if len(walked.args) != 1 or walked.args[0].keyword is not None or walked.args[0].star:
        return None
    counters = {name.value for name in _names(loop.target)}
    read = {name.value for stmt in loop.body.body for name in _names(stmt)}
    return walked.args[0].value if not counters & read else None


def _bound_blocks(loop: cst.For, self_name: str) -> dict[str, str]:
    """Container attribute -> the name a loop binds its blocks to: `for blk in self.blocks`,
    through `enumerate(...)` and `zip(...)` (`for i, (blk, proj) in enumerate(zip(self.a, self.b))`)."""
    bound: dict[str, str] = {}
    for target, walked in walked_by_loop(loop.target, loop.iter, {}):
        container = _container(walked, self_name) if isinstance(walked, cst.Attribute) else None
        if container is not None and isinstance(target, cst.Name):
            bound[container] = target.value
    return bound


def _takes_fresh_values(loop: cst.For, self_name: str, attr: str) -> bool:
    """Every call of the loop's block takes only values built afresh in the iteration: names
    the loop does not rebind or change, or names bound earlier in the iteration from such values."""
    block = _bound_blocks(loop, self_name)[attr]
    changed = _changed_names(loop.body)
    fresh = {name.value for name in _names(loop.target)}
    calls = 0
    for stmt in loop.body.body:
        found = _block_calls(stmt, block)
        if found is None:
            return False  # the block used otherwise, or called under a condition
        for call in found:
            taken = {name.value for arg in call.args for name in _names(arg.value)}
            if any(name in changed and name not in fresh for name in taken):
                return False
        calls += len(found)
        if isinstance(stmt, cst.SimpleStatementLine):
            fresh = _fresh_after(stmt, fresh, changed)
        else:
            fresh -= _changed_names(stmt)  # (bound in an arm that may not run: no longer known afresh)
    return calls > 0


def _block_calls(stmt: cst.CSTNode, block: str) -> list[cst.Call] | None:
    """The calls of `block` in a statement of the loop body; None where it is named otherwise or
    inside a compound statement."""
    calls: list[cst.Call] = []
    named = len([name for name in _names(stmt) if name.value == block])

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if _calls_block(call.func, {block}):
                calls.append(call)

    stmt.visit(_Calls())
    if named == 0 or isinstance(stmt, cst.SimpleStatementLine) and named == len(calls):
        return calls
    return None


#: Methods that change the object they are called on (in-place tensor ops end in `_`).
_MUTATING = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "pop", "remove", "clear"})


def _changed_names(body: cst.CSTNode) -> set[str]:
    """Names a loop body binds or changes in place (`outs.append(y)`, `x.add_(y)`, `h[i] = y`)."""
    changed: set[str] = set()

    class _Changes(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            changed.update(name.value for name in _names(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            changed.update(name.value for name in _names(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            changed.update(name.value for name in _names(node.target))

        def visit_For(self, node: cst.For) -> None:
            changed.update(name.value for name in _names(node.target))

        def visit_AsName(self, node: cst.AsName) -> None:
            changed.update(name.value for name in _names(node.name))

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            changed.update(name.value for name in _names(node.target))

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and (func.attr.value in _MUTATING or func.attr.value.endswith("_")):
                changed.update(name.value for name in _names(func.value))

    body.visit(_Changes())
    return changed


def _fresh_after(line: cst.SimpleStatementLine, fresh: set[str], changed: set[str]) -> set[str]:
    """The names known afresh after a line: what a statement binds or changes from fresh values
    is fresh, what it binds or changes from a value carried over is not."""
    fresh = set(fresh)
    for small in line.body:
        bound = _changed_names(small)
        # (`tmp = f(...)` reads what it rebinds only where it is a part: `h[i] = ...`, `self.h = ...`.)
        plain = {t.target.value for t in getattr(small, "targets", ()) if isinstance(t.target, cst.Name)}
        read = {name.value for name in _names(small)} - plain
        if all(name in fresh or name not in changed for name in read):
            fresh |= bound
        else:
            fresh -= bound
    return fresh


def _container(node: cst.BaseExpression, self_name: str) -> str | None:
    """`self.layers` (or `enumerate(self.layers)`): the attribute a loop walks."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "enumerate":
        node = node.args[0].value if node.args else node
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self_name:
        return node.attr.value
    return None


def _calls_block(func: cst.BaseExpression, blocks: set[str]) -> bool:
    """`blk(...)` or `blk.forward(...)` for a name the loop binds to the block."""
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return isinstance(func, cst.Name) and func.value in blocks


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
