"""Stage 3: which layers write into the residual stream, by data flow through `forward`.

A block's `forward` is read with a small abstract domain: the stream (the block's
input and every `stream + branch` result), a normalised copy of it, and branches
(anything computed from it through at least one layer, remembering the layer
applied last). `stream + branch` is a residual add; its branch's last layer is
followed into that layer's own `forward` until a linear layer is reached: that
linear is the residual writer. Scalars multiplying a branch on the way are kept
(runtime scaling), as are learned gates (LayerScale) and whether the branch input
was normalised (pre-norm).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Env, ModRef, ParamRef, as_number, truth
from initlint.analysis.interp import BudgetExceeded, Ctx, Interpreter
from initlint.analysis.flow import (
    CONDITIONED, MAYBE_NORMED, NORMED, STREAM, Branch, is_gate, is_norm, is_pass_through, join, merge,
)
from initlint.analysis.knowledge.conventions import NORM_FUNCTIONS, SQUASHING, WRITER_NAMES
from initlint.analysis.model import ModuleNode, ResidualAdd, RuntimeScale, WriterRef
from initlint.analysis.statements import StatementWalker
from initlint.analysis.values import Monomial

MAX_FORWARD_DEPTH = 6


@dataclass
class _Flow:
    node: ModuleNode
    adds: list[ResidualAdd] = field(default_factory=list)
    returns: list[Any] = field(default_factory=list)
    statement: cst.CSTNode | None = None
    #: How many modules deep the reading is (`forward` of a child of a child...).
    depth: int = 0


class ForwardReader(StatementWalker[_Flow]):
    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
        self._writers: dict[int, tuple[Any, ...]] = {}

    # ------------------------------------------------------------ entry points
    def residual_adds(self, block: ModuleNode) -> list[ResidualAdd]:
        flow = self._read(block, depth=0)
        if flow is None:
            return []
        if any(value is NORMED or value is MAYBE_NORMED for value in flow.returns):
            # The block renormalises the stream before handing it on (Conformer): post-norm in effect.
            for add in flow.adds:
                add.prenorm = False
        return flow.adds

    def writers_of(self, node: ModuleNode, depth: int = 0) -> tuple[list[tuple[ModuleNode, str, tuple[RuntimeScale, ...]]], bool]:
        """The linear layers whose output is `node`'s output, with scales after them; and whether
        `node` normalises its input first."""
        key = id(node)
        if key in self._writers:
            return self._writers[key]
        self._writers[key] = ([], False)  # recursion guard
        result: tuple[Any, ...] = ([], False)
        if node.kind in ("linear", "conv"):
            result = ([(node, "data flow", ())], False)
        elif node.kind == "sequential" and node.children:
            layers = [c for c in node.children.values() if not is_pass_through(c)]
            if layers:
                result = self.writers_of(layers[-1], depth + 1)
        elif node.kind == "attention" and "out_proj" in node.children:
            result = ([(node.children["out_proj"], "data flow", ())], False)
        elif node.kind == "module" and node.cls is not None and depth < MAX_FORWARD_DEPTH:
            flow = self._read(node, depth + 1)
            found: list[Any] = []
            normed: bool | None = False
            if flow is not None:
                branches = [value for value in flow.returns if isinstance(value, Branch)]
                # Paths that end in different layers (a fused-kernel path beside the eager one)
                # leave the writer undecided: keep only what every path agrees on.
                common = set.intersection(*(set(map(id, b.last)) for b in branches)) if branches else set()
                out = merge(branches)
                if isinstance(out, Branch):
                    normed = out.normed
                    for last in out.last:
                        if id(last) not in common:
                            continue
                        inner, _ = self.writers_of(last, depth + 1)
                        found.extend((w, how, scales + out.scales) for w, how, scales in inner)
            if not found:
                found = self._by_name(node)
            result = (found, normed)
        self._writers[key] = result
        return result

    def _by_name(self, node: ModuleNode) -> list[Any]:
        names = WRITER_NAMES + tuple(self.interp.options.writer_names)
        for name in names:
            child = node.children.get(name)
            if child is not None and child.kind in ("linear", "conv"):
                return [(child, "name", ())]
        return []

    # ---------------------------------------------------------------- reading
    def _read(self, node: ModuleNode, depth: int) -> _Flow | None:
        found = self.interp.index.find_method(node.cls, "forward") if node.cls is not None else None
        if found is None:
            return None
        _, func = found
        flow = _Flow(node, depth=depth)
        env = Env()
        params = [p.name.value for p in func.params.params]
        if len(params) < 2:
            return None
        env.names[params[0]] = ModRef(node)
        env.names[params[1]] = STREAM
        for name in params[2:]:
            env.names[name] = UNKNOWN
        try:
            self.walk_block(func.body.body if isinstance(func.body, cst.IndentedBlock) else [func.body], env, flow)
        except BudgetExceeded:
            raise
        except RecursionError:
            return None
        return flow

    def tick(self) -> None:
        self.interp.tick()

    def on_small(self, small: cst.BaseSmallStatement, env: Env, flow: _Flow) -> None:
        flow.statement = small
        self._small(small, env, flow, flow.depth)

    def on_if(self, stmt: cst.If, env: Env, flow: _Flow) -> None:
        decided = truth(self._value(stmt.test, env))
        orelse = stmt.orelse
        else_body = [orelse] if isinstance(orelse, cst.If) else orelse.body.body if isinstance(orelse, cst.Else) else []
        if decided is None:
            self._undecided_if(stmt.body.body, else_body, env, flow)
        else:
            self.walk_block(stmt.body.body if decided else else_body, env, flow)

    def _undecided_if(self, body: Sequence[cst.CSTNode], else_body: Sequence[cst.CSTNode], env: Env, flow: _Flow) -> None:
        """Read each arm from the state before the `if`, then join what the names hold."""
        before, first_add = dict(env.names), len(flow.adds)
        self.walk_block(body, env, flow)
        after_body = env.names
        env.names = dict(before)
        self.walk_block(else_body, env, flow)
        names = after_body.keys() | env.names.keys()
        joined = {name: join(after_body.get(name, UNKNOWN), env.names.get(name, UNKNOWN)) for name in names}
        if any(joined[n] is MAYBE_NORMED and after_body.get(n) is not MAYBE_NORMED and env.names.get(n) is not MAYBE_NORMED for n in names):
            # One arm renormalises the stream, the other does not (`if self.pre_norm: ... else: ...`):
            # the norm placement is a flag we cannot decide, so the adds in either arm are too.
            for add in flow.adds[first_add:]:
                add.prenorm = None
        env.names = joined

    def _small(self, small: cst.BaseSmallStatement, env: Env, flow: _Flow, depth: int) -> None:
        if isinstance(small, cst.Assign):
            value = self._eval(small.value, env, flow, depth)
            for target in small.targets:
                self._assign(target.target, value, env)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._assign(small.target, self._eval(small.value, env, flow, depth), env)
        elif isinstance(small, cst.AugAssign):
            current = self._eval(small.target, env, flow, depth)
            value = self._eval(small.value, env, flow, depth)
            if isinstance(small.operator, cst.AddAssign):
                self._assign(small.target, self._add(current, value, small, flow), env)
            else:
                self._assign(small.target, self._scale(current, value, small.value, small.operator, env, small), env)
        elif isinstance(small, cst.Return) and small.value is not None:
            flow.returns.append(self._eval(small.value, env, flow, depth))
        elif isinstance(small, cst.Expr):
            self._eval(small.value, env, flow, depth)

    def _assign(self, target: cst.BaseExpression, value: Any, env: Env) -> None:
        if isinstance(target, cst.Name):
            env.names[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, element in enumerate(target.elements):
                # `shift, scale, gate = self.modulation(c).chunk(3)`: every part is conditioned.
                self._assign(element.value, value if i == 0 or value is CONDITIONED else UNKNOWN, env)

    def _add(self, left: Any, right: Any, node: cst.CSTNode, flow: _Flow) -> Any:
        for stream, branch in ((left, right), (right, left)):
            if stream is STREAM and isinstance(branch, Branch) and flow.node.cls is not None:
                add = ResidualAdd(flow.node.cls, node, flow.statement or node, prenorm=branch.normed, gated=branch.gated or branch.renormalised)
                add.writers = self._writer_refs(flow.node, branch)
                flow.adds.append(add)
                return STREAM
        return merge([left, right])

    def _writer_refs(self, block: ModuleNode, branch: Branch) -> list[WriterRef]:
        refs: list[WriterRef] = []
        for last in branch.last:
            writers, _ = self.writers_of(last)
            for writer, how, scales in writers:
                relative = writer.path[len(block.path) + 1:] if block.path else writer.path
                owner = writer.parent.cls if writer.parent is not None and writer.parent.cls is not None else block.cls
                if owner is None:
                    continue
                refs.append(WriterRef(relative, owner, writer.name, how, list(scales) + list(branch.scales)))
        return refs

    def _scale(self, value: Any, other: Any, other_node: cst.BaseExpression, operator: cst.CSTNode, env: Env, whole: cst.CSTNode) -> Any:
        if not isinstance(value, Branch):
            return value
        if isinstance(other, (ParamRef, Branch)) or other is CONDITIONED:
            # A learned gate (LayerScale) or an input-conditioned one (adaLN) sets the branch scale.
            return replace(value, gated=value.gated or not isinstance(other, Branch))
        number = self._number(other_node, env)
        if number is not None:
            if isinstance(operator, (cst.Divide, cst.DivideAssign)):
                number = number.inverse(other_node)
            if number is not None:
                scale = RuntimeScale(whole, number, self.interp.code(other_node))
                return replace(value, scales=value.scales + (scale,))
        return value

    def _value(self, node: cst.BaseExpression, env: Env) -> Any:
        """Evaluate an expression with the interpreter, `self` bound to the module node."""
        numeric_env = Env({k: v for k, v in env.names.items() if isinstance(v, ModRef)})
        try:
            return self.interp.eval(node, numeric_env, Ctx(certain=False))
        except RecursionError:
            return UNKNOWN

    def _number(self, node: cst.BaseExpression, env: Env) -> Monomial | None:
        return as_number(self._value(node, env))

    def _eval(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> Any:
        self.interp.tick()
        if isinstance(node, cst.Name):
            return env.names.get(node.value, UNKNOWN)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, env, flow, depth)
        if isinstance(node, cst.Call):
            return self._call(node, env, flow, depth)
        if isinstance(node, cst.Attribute):
            base = self._eval(node.value, env, flow, depth)
            if isinstance(base, ModRef):
                child = base.node.children.get(node.attr.value)
                if child is not None:
                    return ModRef(child)
                param = base.node.params.get(node.attr.value)
                return ParamRef(param) if param is not None else UNKNOWN
            return base if base is STREAM or base is NORMED or isinstance(base, Branch) else UNKNOWN
        if isinstance(node, cst.Subscript):
            base = self._eval(node.value, env, flow, depth)
            if isinstance(base, ModRef) and len(base.node.children) >= 1:
                return ModRef(next(iter(base.node.children.values())))
            if any(isinstance(element.slice, cst.Slice) for element in node.slice):
                return UNKNOWN  # `outputs[1:]`: the attention weights riding along, not the output
            return base
        if isinstance(node, (cst.Tuple, cst.List)):
            # `return out, weights`: a module's output comes first.
            values = [self._eval(e.value, env, flow, depth) for e in node.elements]
            return values[0] if values else UNKNOWN
        if isinstance(node, cst.IfExp):
            body = self._eval(node.body, env, flow, depth)
            orelse = self._eval(node.orelse, env, flow, depth)
            return body if body is not UNKNOWN else orelse
        if isinstance(node, cst.ParenthesizedWhitespace):
            return UNKNOWN
        return UNKNOWN

    def _binary(self, node: cst.BinaryOperation, env: Env, flow: _Flow, depth: int) -> Any:
        left = self._eval(node.left, env, flow, depth)
        right = self._eval(node.right, env, flow, depth)
        if isinstance(node.operator, cst.Add):
            return self._add(left, right, node, flow)
        if isinstance(node.operator, (cst.Multiply, cst.Divide)):
            if isinstance(left, Branch) and isinstance(right, Branch):
                # `sigmoid(gate(x)) * expert(x)`: the squashed side gates the other.
                if left.squashed != right.squashed:
                    content = right if left.squashed else left
                    return replace(content, gated=True)
                return merge([left, right])
            if isinstance(left, Branch):
                return self._scale(left, right, node.right, node.operator, env, node)
            if isinstance(right, Branch) and isinstance(node.operator, cst.Multiply):
                return self._scale(right, left, node.left, node.operator, env, node)
        if isinstance(node.operator, cst.MatrixMultiply):
            return right if isinstance(right, Branch) else left  # `probs @ v`: the content is v's
        return merge([left, right]) if isinstance(node.operator, cst.Subtract) else (left if left is not UNKNOWN else right)

    def _call(self, node: cst.Call, env: Env, flow: _Flow, depth: int) -> Any:
        args = [self._eval(arg.value, env, flow, depth) for arg in node.args]
        carried = merge([a for a in args if a is STREAM or a is NORMED or a is CONDITIONED or isinstance(a, Branch)])
        func = node.func
        if isinstance(func, cst.Subscript):
            callee = self._eval(func, env, flow, depth)
            return self._apply_module(callee.node, carried, depth) if isinstance(callee, ModRef) else carried
        if not isinstance(func, cst.Attribute):
            return carried
        name = func.attr.value
        weights = [a for a in args if isinstance(a, ParamRef)]
        if name == "linear" and weights and carried is not UNKNOWN:
            # `F.linear(x, self.proj.weight)`: the layer owning the weight is applied.
            return self._apply_module(weights[0].param.owner, carried, depth)
        if weights:
            return UNKNOWN  # a fused kernel fed with raw weights: its output is not ours to trace
        if name in SQUASHING and isinstance(carried, Branch):
            return replace(carried, squashed=True)
        receiver = self._eval(func.value, env, flow, depth)
        if isinstance(receiver, ModRef):
            child = receiver.node.children.get(name)
            if child is not None:
                return self._apply_module(child, carried, depth)
            if receiver.node is flow.node and receiver.node.cls is not None:
                return self._method(receiver.node, name, args, depth) or carried
            return UNKNOWN  # `self.experts.reduce(...)`: another module's helper, not its forward
        if name in NORM_FUNCTIONS:
            return NORMED if carried is STREAM else carried
        if name in ("matmul", "bmm") and len(args) == 2 and isinstance(args[1], Branch):
            return args[1]
        if receiver is STREAM or receiver is NORMED or receiver is CONDITIONED or isinstance(receiver, Branch):
            # A tensor method (`.view`, `.square()`, `.softmax()`): the value keeps its provenance.
            return receiver
        return carried

    def _method(self, node: ModuleNode, name: str, args: list[Any], depth: int) -> Any:
        """A helper method of the same module (`self._attn(q, k, v)`): what it returns."""
        found = self.interp.index.find_method(node.cls, name) if node.cls is not None else None
        if found is None or depth >= MAX_FORWARD_DEPTH or name == "forward":
            return None
        _, func = found
        env = Env()
        params = [p.name.value for p in func.params.params]
        if params:
            env.names[params[0]] = ModRef(node)
        for pname, value in zip(params[1:], args):
            env.names[pname] = value
        inner = _Flow(node, depth=depth + 1)
        self.walk_block(func.body.body if isinstance(func.body, cst.IndentedBlock) else [], env, inner)
        return merge(inner.returns) if inner.returns else None

    def _apply_module(self, module: ModuleNode, carried: Any, depth: int) -> Any:
        if carried is UNKNOWN or carried is CONDITIONED:
            return CONDITIONED if module.kind in ("linear", "module", "sequential") else UNKNOWN
        if is_norm(module):
            if carried is STREAM:
                return NORMED
            if isinstance(carried, Branch):
                # `x + post_norm(f(norm(x)))`: the norm, not the writer's init, sets the branch scale.
                return replace(carried, renormalised=True)
            return carried
        if is_pass_through(module):
            return carried
        if isinstance(carried, Branch) and is_gate(module):
            return replace(carried, gated=True)
        normed: bool | None = carried is NORMED or isinstance(carried, Branch) and carried.normed
        if carried is MAYBE_NORMED or isinstance(carried, Branch) and carried.normed is None:
            normed = None
        if carried is STREAM and module.kind == "module":
            _, normed = self.writers_of(module, depth)
        return Branch((module,), normed)
