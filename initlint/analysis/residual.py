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

import functools

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Const, Env, FuncRef, Lambda, ModRef, ParamRef, Seq, as_number, truth
from initlint.analysis.index import ClassInfo
from initlint.analysis.interp import Ctx, Interpreter
from initlint.errors import StepBudgetExceeded
from initlint.analysis.flow import (
    ACTIVATED,
    CONDITIONED,
    MAYBE_NORMED,
    NORMED,
    STREAM,
    Branch,
    Part,
    is_gate,
    is_norm,
    is_pass_through,
    join,
    merge,
)
from initlint.analysis.knowledge.conventions import (
    ACCUMULATE_IN_PLACE,
    ACTIVATION_FUNCTIONS,
    FRESH_TENSORS,
    MATRIX_PRODUCTS,
    NORM_FUNCTIONS,
    RESHAPING_METHODS,
    RETURNS_ARGUMENT,
    SQUASHING,
    TENSOR_METADATA,
    WRITER_NAMES,
)
from initlint.analysis.knowledge.specs import ResidualBlock
from initlint.analysis.layers import layer_type
from initlint.analysis.model import ModuleNode, ResidualAdd, RuntimeScale, WriterRef
from initlint.analysis.scaled_input import returns_scaled_input
from initlint.analysis.statements import StatementWalker
from initlint.analysis.values import Monomial

MAX_FORWARD_DEPTH = 6
#: A writer found: the layer (or the module owning a matrix parameter), how it was found, the
#: runtime scales after it, and which of its parameters is the written matrix.
_Found = tuple[ModuleNode, str, tuple[RuntimeScale, ...], str]
#: Children of a container a `for` in `forward` is read for, one after the other.
MAX_UNROLL = 16


@dataclass
class _Flow:
    node: ModuleNode
    adds: list[ResidualAdd] = field(default_factory=list)
    returns: list[Any] = field(default_factory=list)
    statement: cst.CSTNode | None = None
    #: How many modules deep the reading is (`forward` of a child of a child...).
    depth: int = 0
    #: How many undecided `if` arms enclose the statement being read.
    undecided: int = 0
    #: The block the adds belong to, when it is not `node` itself: a classless pair
    #: (`ModuleList([attn, ff])`) whose adds are written in the loop of its owner's `forward`.
    block: ModuleNode | None = None
    #: Adds count only inside the loop over that block's container.
    recording: bool = True
    #: Names the function binds once to a tuple written out (`pair = (self.layers, gains)`).
    literals: Mapping[str, cst.BaseExpression] = field(default_factory=dict)


class ForwardReader(StatementWalker[_Flow]):
    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
        self._writers: dict[int, tuple[Any, ...]] = {}
        self._scales_input: dict[int, bool] = {}

    # ------------------------------------------------------------ entry points
    def residual_adds(self, block: ModuleNode) -> list[ResidualAdd]:
        library = layer_type(self.interp.knowledge, block.type_name) if block.kind == "block" else None
        if library is not None and library.residual is not None:
            return _library_adds(block, library.residual)
        flow = self._read(block, depth=0) if block.cls is not None else self._read_owner_loop(block)
        if (flow is None or not flow.adds) and block.cls is None and block.kind in ("sequential", "wrapper"):
            return self._sequential_adds(block)
        if flow is None:
            return []
        # (An owner's `forward` returning `self.norm(x)` after the loop is the final norm, not the block's.)
        if flow.block is None and any(value in (NORMED, MAYBE_NORMED, ACTIVATED) for value in flow.returns):
            # The block renormalises the stream before handing it on (Conformer): post-norm in
            # effect; or puts it through a nonlinearity (Inception-ResNet): post-activation.
            for add in flow.adds:
                add.prenorm = False
        return flow.adds

    def output_layers(self, root: ModuleNode) -> list[ModuleNode]:
        """The linear layers applied last to what a root's `forward` returns (first item of a
        tuple: `return logits, loss`): the output head, as the runtime names it."""
        flow = self._read(root, depth=0)
        values = [
            value.items[0] if isinstance(value, Seq) and value.items else value
            for value in (flow.returns if flow else [])
        ]
        return [m for value in values if isinstance(value, Branch) for m in value.last if m.kind == "linear"]

    def _sequential_adds(self, block: ModuleNode) -> list[ResidualAdd]:
        """`nn.Sequential(Residual(attn), Residual(ff))` as a block: the stream runs through the
        children one after another, each adding its branch in its own `forward`, for as long as
        each hands the stream on. A wrapper that builds one child is a block of that child."""
        adds: list[ResidualAdd] = []
        for name, child in block.children.items():
            if self._passes_through(child):
                continue
            flow = self._read(child, depth=0) if child.cls is not None else None
            if flow is None or not flow.adds:
                break
            for add in flow.adds:
                add.writers = [replace(ref, path=f"{name}.{ref.path}") for ref in add.writers]
                add.site = name
            adds.extend(flow.adds)
            if any(value is not STREAM for value in flow.returns):
                break  # what it hands on is no longer the stream
        return adds

    def writers_of(self, node: ModuleNode, depth: int = 0) -> tuple[list[_Found], bool]:
        """The linear layers (or matrix parameters: 3-D experts) whose output is `node`'s output,
        with scales after them; and whether `node` normalises its input first."""
        key = id(node)
        if key in self._writers:
            return self._writers[key]
        self._writers[key] = ([], False)  # recursion guard
        result: tuple[Any, ...] = ([], False)
        if node.kind in ("linear", "conv"):
            result = ([(node, "data flow", (), "weight")], False)
        elif node.kind == "sequential" and node.children:
            layers = [c for c in node.children.values() if not self._passes_through(c)]
            if layers:
                result = self.writers_of(layers[-1], depth + 1)
        elif node.kind == "attention" and "out_proj" in node.children:
            result = ([(node.children["out_proj"], "data flow", (), "weight")], False)
        elif node.kind == "module" and node.cls is not None and depth < MAX_FORWARD_DEPTH:
            flow = self._read(node, depth + 1)
            found: list[Any] = []
            normed: bool | None = False
            if flow is not None:
                branches = [value for value in flow.returns if isinstance(value, Branch)]
                # Paths that end in different layers (a fused-kernel path beside the eager one)
                # leave the writer undecided: keep only what every path agrees on.
                common = set.intersection(*(set(map(id, b.last + b.matrices)) for b in branches)) if branches else set()
                out = merge(branches)
                if isinstance(out, Branch):
                    normed = out.normed
                    for last in out.last:
                        if id(last) not in common:
                            continue
                        inner, _ = self.writers_of(last, depth + 1)
                        found.extend((w, how, scales + out.scales, param) for w, how, scales, param in inner)
                    found.extend((p.owner, "data flow", out.scales, p.name) for p in out.matrices if id(p) in common)
            if not found:
                found = self._by_name(node)
            result = (found, normed)
        self._writers[key] = result
        return result

    def _passes_through(self, module: ModuleNode) -> bool:
        """A layer that hands on what it is given (dropout, an activation), or a module without
        parameters or sub-layers of its own whose `forward` returns its input, at most scaled by
        values independent of it (stochastic depth written out in the file)."""
        if is_pass_through(module):
            return True
        cls = module.cls
        if module.kind != "module" or cls is None or module.params or module.children:
            return False
        if id(cls.node) not in self._scales_input:
            found = self.interp.index.find_method(cls, "forward")
            scales = found is not None and returns_scaled_input(found[1], self.interp.index, cls)
            self._scales_input[id(cls.node)] = scales
        return self._scales_input[id(cls.node)]

    def _multiplies_by_matrix(self, module: ModuleNode, depth: int) -> bool:
        """A module with parameters and no sub-layers that uses them as weight matrices (3-D
        experts) is a layer, not a LayerScale-like gate."""
        return any(param != "weight" for _, _, _, param in self.writers_of(module, depth)[0])

    def _by_name(self, node: ModuleNode) -> list[Any]:
        """A writer by its name, where the data flow ends in a call we cannot read: a linear
        child, or in a module of bare parameters (experts run by a fused kernel) a matrix."""
        names = WRITER_NAMES + tuple(self.interp.options.writer_names)
        for name in names:
            child = node.children.get(name)
            if child is not None and child.kind in ("linear", "conv"):
                return [(child, "name", (), "weight")]
            param = node.params.get(name) if not node.children else None
            if param is not None and param.ndim is not None and param.ndim >= 2:
                return [(node, "name", (), name)]
        return []

    # ---------------------------------------------------------------- reading
    def _read(self, node: ModuleNode, depth: int, block: ModuleNode | None = None) -> _Flow | None:
        found = self.interp.index.find_method(node.cls, "forward") if node.cls is not None else None
        if found is None:
            return None
        _, func = found
        flow = _Flow(node, depth=depth, block=block, recording=block is None, literals=_tuple_literals(func))
        env = Env()
        params = [p.name.value for p in func.params.params]
        if len(params) < 2:
            return None
        env.names[params[0]] = ModRef(node)
        env.names[params[1]] = STREAM
        for name in params[2:]:
            # Computed by the caller, not from this block's stream: adaLN-zero's `gate_msa`, handed
            # in by the parent, gates a branch as one computed here from `c` does.
            env.names[name] = CONDITIONED
        try:
            self.walk_block(func.body.body, env, flow)
        except StepBudgetExceeded:
            raise
        except RecursionError:
            return None
        return flow

    def _read_owner_loop(self, block: ModuleNode) -> _Flow | None:
        """A block without a class of its own (a pair `ModuleList([attn, ff])`): its adds are in
        the loop of its container's owner's `forward`."""
        container = block.parent
        owner = container.parent if container is not None else None
        if owner is None or owner.cls is None:
            return None
        return self._read(owner, depth=0, block=block)

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

    def on_for(self, stmt: cst.For, env: Env, flow: _Flow) -> None:
        # `for i, ((attn, ff), p) in enumerate(zip(self.layers, drops))`: each target with what it walks.
        loops = [
            (target, None if node is None else self._eval(node, env, flow, flow.depth))
            for target, node in _walked(stmt.target, stmt.iter, flow.literals)
        ]
        for target, iterable in loops:
            # What is zipped beside the layers is handed in with each (LayerScale gains in a
            # ParameterList): computed elsewhere, like an extra argument of a block's `forward`.
            _bind(target, CONDITIONED if len(loops) > 1 and iterable is not None else UNKNOWN, env)
        for target, iterable in loops:
            if flow.block is not None and isinstance(iterable, ModRef) and flow.block.parent is iterable.node:
                self._block_loop(stmt, target, env, flow)
                return
        modules = [(target, items) for target, iterable in loops if (items := _module_items(iterable)) is not None]
        walked, items = modules[0] if len(modules) == 1 else (None, [UNKNOWN])
        for item in items[:MAX_UNROLL]:
            if walked is not None:
                _bind(walked, item, env)
            self.walk_block(stmt.body.body, env, flow)

    def _block_loop(self, stmt: cst.For, target: cst.BaseExpression, env: Env, flow: _Flow) -> None:
        """`for attn, ff in self.layers: x = attn(x) + x`: the loop body is the block's forward,
        and what it carries from one iteration to the next is the stream."""
        assert flow.block is not None
        _bind(target, ModRef(flow.block), env)
        # The loop's own names are bound afresh each iteration (`block = cast(Dict, block)`):
        # only the others carry the stream from one block to the next.
        for name in _assigned_names(stmt.body) - _target_names(stmt.target):
            if name in env.names:
                env.names[name] = STREAM
        flow.recording = True
        self.walk_block(stmt.body.body, env, flow)
        flow.recording = False

    def _undecided_if(
        self, body: Sequence[cst.CSTNode], else_body: Sequence[cst.CSTNode], env: Env, flow: _Flow
    ) -> None:
        """Read each arm from the state before the `if`, then join what the names hold."""
        before, first_add = dict(env.names), len(flow.adds)
        flow.undecided += 1
        self.walk_block(body, env, flow)
        after_body = env.names
        env.names = dict(before)
        self.walk_block(else_body, env, flow)
        flow.undecided -= 1
        names = after_body.keys() | env.names.keys()
        joined = {name: join(after_body.get(name, UNKNOWN), env.names.get(name, UNKNOWN)) for name in names}
        if any(
            joined[n] is MAYBE_NORMED and after_body.get(n) is not MAYBE_NORMED and env.names.get(n) is not MAYBE_NORMED
            for n in names
        ):
            # One arm renormalises the stream, the other does not (`if self.pre_norm: ... else: ...`):
            # the norm placement is a flag we cannot decide, so the adds in either arm are too.
            for add in flow.adds[first_add:]:
                add.prenorm = None
        env.names = joined

    def _small(self, small: cst.BaseSmallStatement, env: Env, flow: _Flow, depth: int) -> None:
        pairs = _pairwise(small) if isinstance(small, cst.Assign) else None
        if pairs is not None:
            # `attn, ff = self.attn, self.ff`: each name its own value.
            values = [self._eval(node, env, flow, depth) for _, node in pairs]
            for (element, _), element_value in zip(pairs, values):
                self._assign(element, element_value, env)
        elif isinstance(small, cst.Assign):
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
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            self._bind_imported_functions(small, env)

    def _bind_imported_functions(self, small: cst.Import | cst.ImportFrom, env: Env) -> None:
        """`from .calls import call_layer` inside `forward`: the names it binds to functions of
        the project, which then run with their arguments as the file's own helpers do."""
        imported = Env()
        self.interp.exec_small(small, imported, Ctx(certain=False))
        for name in imported.names:
            value = self.interp.eval(cst.Name(name), imported, Ctx(certain=False))
            if _plain_function(value) is not None:
                env.names[name] = value

    def _assign(self, target: cst.BaseExpression, value: Any, env: Env) -> None:
        if isinstance(target, cst.Name):
            env.names[target.value] = value
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and isinstance(value, Branch):
            # `out[mask] = expert(x[mask])`: the tensor now holds that content too.
            name = target.value.value
            env.names[name] = merge([env.names.get(name, UNKNOWN), value])
        elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, ModRef) and value.node.kind in _LISTS:
            _bind(target, value, env)  # `norm, mlp = layer`: a container unpacks into its children
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, element in enumerate(target.elements):
                # `shift, scale, gate = self.modulation(c).chunk(3)`: every part is conditioned.
                # `norm, gate_msa, ... = self.attn_norm(x, emb=t)`: what a layer hands out beside
                # its output is computed by that layer, so a branch it multiplies is gated.
                self._assign(
                    element.value,
                    value if i == 0 or value is CONDITIONED else Part(value) if isinstance(value, Branch) else UNKNOWN,
                    env,
                )

    def _add(self, left: Any, right: Any, node: cst.CSTNode, flow: _Flow) -> Any:
        for stream, branch in ((left, right), (right, left)):
            if stream is STREAM and isinstance(branch, Branch) and flow.node.cls is not None and flow.recording:
                block = flow.block or flow.node
                add = ResidualAdd(
                    f"{flow.node.cls.name}.forward",
                    node,
                    flow.statement or node,
                    prenorm=branch.normed,
                    gated=branch.gated or branch.renormalised,
                )
                add.writers = self._writer_refs(block, branch)
                add.optional = flow.undecided > 0 and any(_may_not_exist(m, block) for m in branch.last)
                flow.adds.append(add)
                return STREAM
        return merge([left, right])

    def _writer_refs(self, block: ModuleNode, branch: Branch) -> list[WriterRef]:
        refs: list[WriterRef] = []
        found = [w for last in branch.last for w in self.writers_of(last)[0]]
        found.extend((p.owner, "data flow", (), p.name) for p in branch.matrices)
        for writer, how, scales, param in found:
            relative = writer.path[len(block.path) + 1 :] if block.path else writer.path
            # A matrix parameter is created by its own module's `__init__`; a layer by its parent's.
            owner = (writer.cls if param != "weight" else _creator(writer)) or block.cls
            if owner is None:
                continue
            attr = writer.name if param == "weight" else param
            scaled = list(scales) + list(branch.scales)
            refs.append(WriterRef(relative, owner.name, attr, how, scaled, param, layer=writer))
        return refs

    def _scale(
        self,
        value: Any,
        other: Any,
        other_node: cst.BaseExpression,
        operator: cst.CSTNode,
        env: Env,
        whole: cst.CSTNode,
    ) -> Any:
        if not isinstance(value, Branch):
            return value
        if isinstance(other, (ParamRef, Branch, Part)) or other is CONDITIONED:
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
                return _member(base.node, node.attr.value)
            if node.attr.value in TENSOR_METADATA:
                return UNKNOWN
            return base if base is STREAM or base is NORMED or isinstance(base, Branch) else UNKNOWN
        if isinstance(node, cst.Subscript):
            base = self._eval(node.value, env, flow, depth)
            if isinstance(base, ModRef):
                index = (
                    self._value(node.slice[0].slice.value, env)
                    if isinstance(node.slice[0].slice, cst.Index)
                    else UNKNOWN
                )
                return _indexed(base.node, index)
            if any(isinstance(element.slice, cst.Slice) for element in node.slice):
                return UNKNOWN  # `outputs[1:]`: the attention weights riding along, not the output
            return base
        if isinstance(node, cst.Dict):
            return self._record(node, env, flow, depth)
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

    def _record(self, node: cst.Dict, env: Env, flow: _Flow, depth: int) -> Any:
        """`return {"hidden_states": out, "sequence_mask": mask}`: the one entry computed from the
        input is the output the caller reads back by its key; with two, which is read is unknown."""
        values = [self._eval(e.value, env, flow, depth) for e in node.elements if isinstance(e, cst.DictElement)]
        carried = [v for v in values if v is STREAM or v is NORMED or v is MAYBE_NORMED or isinstance(v, Branch)]
        return carried[0] if len(carried) == 1 else UNKNOWN

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
            if _gates_untraced_content(left, right):
                # `emit(contracted) * sigmoid(gate(h))` with `emit`'s input untraced, or `h *
                # sigmoid(gate(h))` on the stream itself: the squashed side is a gate, and the
                # content's writer is not known (or there is none).
                return UNKNOWN
            if isinstance(left, Branch):
                return self._scale(left, right, node.right, node.operator, env, node)
            if isinstance(right, Branch) and isinstance(node.operator, cst.Multiply):
                return self._scale(right, left, node.left, node.operator, env, node)
        if isinstance(node.operator, cst.MatrixMultiply):
            if isinstance(right, ParamRef):
                return _through_matrix(left, right)  # `h @ self.down_proj[e]`: a 3-D expert weight
            return right if isinstance(right, Branch) else left  # `probs @ v`: the content is v's
        return (
            merge([left, right])
            if isinstance(node.operator, cst.Subtract)
            else (left if left is not UNKNOWN else right)
        )

    def _call(self, node: cst.Call, env: Env, flow: _Flow, depth: int) -> Any:
        args = [self._eval(arg.value, env, flow, depth) for arg in node.args]
        carried = merge(
            [a for a in args if a is STREAM or a is NORMED or a is CONDITIONED or isinstance(a, (Branch, Part))]
        )
        func = node.func
        returned = RETURNS_ARGUMENT.get(self.interp.index.resolve(func) or "")
        if returned is not None and len(args) > returned:
            return args[returned]
        if isinstance(func, cst.Name) and func.value not in env.names:
            return self._call_global(func.value, node, args, flow, depth, carried)
        if isinstance(func, (cst.Subscript, cst.Name)):
            return self._call_value(self._eval(func, env, flow, depth), node, args, flow, depth, carried)
        if not isinstance(func, cst.Attribute):
            return carried
        name = func.attr.value
        weights = [a for a in args if isinstance(a, ParamRef)]
        if name == "linear" and weights and carried is not UNKNOWN:
            # `F.linear(x, self.proj.weight)`: the layer owning the weight is applied.
            return self._apply_module(weights[0].param.owner, carried, depth)
        if name in MATRIX_PRODUCTS and weights:
            return _through_matrix(carried, weights[-1])  # `einsum("th,thd->td", h, self.w2[e])`
        carried = _mixed(name, args, carried)
        if name in FRESH_TENSORS:
            return UNKNOWN  # `torch.zeros_like(x)`: a new tensor, not the stream
        if (
            name in ACCUMULATE_IN_PLACE
            and isinstance(func.value, cst.Name)
            and isinstance(args[-1:] and args[-1], Branch)
        ):
            merged = merge([env.names.get(func.value.value, UNKNOWN), args[-1]])
            env.names[func.value.value] = merged
            return merged
        if weights:
            return _fed_raw_weights(name, args, carried)
        if name in SQUASHING and isinstance(carried, Branch):
            return replace(carried, squashed=True)
        receiver = self._eval(func.value, env, flow, depth)
        if name in TENSOR_METADATA and not isinstance(receiver, ModRef):
            return UNKNOWN
        if isinstance(receiver, ModRef):
            return self._module_call(receiver.node, name, node, args, flow, depth, carried)
        return _tensor_call(receiver, name, args, carried)

    def _module_call(
        self, module: ModuleNode, name: str, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any
    ) -> Any:
        """`module.name(...)`: a child or lambda it holds, its own `forward`, its children, a helper."""
        member = _member(module, name)
        if isinstance(member, (ModRef, Lambda)):
            return self._call_value(member, call, args, flow, depth, carried)
        if name in ("forward", "__call__") and module is not flow.node:
            return self._apply_module(module, carried, depth)  # `self.attention.forward(h)`
        if name in ("values", "children") and module.kind in ("container", "sequential"):
            return Seq([ModRef(child) for child in module.children.values()])
        if module is flow.node and module.cls is not None:
            return self._method(module, name, call, args, flow, depth) or carried
        return UNKNOWN  # `self.experts.reduce(...)`: another module's helper, not its forward

    def _method(self, node: ModuleNode, name: str, call: cst.Call, args: list[Any], flow: _Flow, depth: int) -> Any:
        """A helper method of the same module (`self._attn(q, k, v)`): what it returns."""
        found = self.interp.index.find_method(node.cls, name) if node.cls is not None else None
        if found is None or name == "forward":
            return None
        return self._inline(found[1], [ModRef(node)] + args, call, flow, depth)

    def _call_global(self, name: str, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any) -> Any:
        """A function of the file (`dropout_add(out, residual, p, training)`), or one it imports
        from another file of the project, runs with its arguments."""
        func = self.interp.index.functions.get(name) or _plain_function(self._value(call.func, Env()))
        if func is None:
            # Only past a traced layer: a fused norm handed the stream and its gain (`layer_norm_fn(x,
            # self.norm.weight)`) leaves the stream as it was read before.
            return _fed_raw_weights(name, args, carried) if isinstance(carried, (Branch, Part)) else carried
        result = self._inline(func, args, call, flow, depth)
        return carried if result is None else result

    def _call_value(self, callee: Any, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any) -> Any:
        if isinstance(callee, ModRef):
            found = self._runs_with_arguments(callee.node, args)
            if found is not None:
                result = self._inline(found, [callee] + args, call, flow, depth)
                return carried if result is None else result
            inner = self._adds_within(callee.node, flow, depth) if carried is STREAM and flow.recording else None
            if inner:
                flow.adds.extend(inner)
                return STREAM
            if is_gate(callee.node) and isinstance(carried, Branch):
                # A module of bare parameters handed the stream beside a branch (experts given the
                # tokens and the router's scores) computes from the stream: it gates nothing.
                carried = next((arg for arg in args if arg is STREAM or arg is NORMED), carried)
            return self._apply_module(callee.node, carried, depth)
        func = _plain_function(callee)
        if func is not None:
            # A helper imported inside `forward` (`from .base import call_layer`).
            result = self._inline(func, args, call, flow, depth)
            return carried if result is None else result
        if isinstance(callee, Lambda) and depth < MAX_FORWARD_DEPTH:
            # `self.mlpf = lambda x: m.c_proj(m.act(m.c_fc(x)))`: the modules it closes over run.
            closure = callee.closure.names if isinstance(callee.closure, Env) else {}
            env = Env({k: v for k, v in closure.items() if isinstance(v, ModRef)})
            for param, value in zip(callee.node.params.params, args):
                env.names[param.name.value] = value
            return self._eval(callee.node.body, env, flow, depth + 1)
        return carried

    def _adds_within(self, module: ModuleNode, flow: _Flow, depth: int) -> list[ResidualAdd]:
        """A module handed the stream whose own `forward` adds its input back and returns only
        the sum (a residual wrapper: `return self.fn(self.norm(x)) + x`, or `(out + x, *rest)` for
        a tuple): its adds belong to the block that calls it, and what it hands on is the stream."""
        if module.cls is None or depth >= MAX_FORWARD_DEPTH:
            return []
        inner = self._read(module, depth + 1)
        if inner is None or not inner.adds or any(value is not STREAM for value in inner.returns):
            return []
        block = flow.block or flow.node
        prefix = module.path[len(block.path) + 1 :] if block.path else module.path
        # Each `return` hands back one sum: arms that add the same writers (a plain and a tuple
        # output) are one add per call.
        adds: dict[tuple[str, ...], ResidualAdd] = {}
        for add in inner.adds:
            add.writers = [replace(ref, path=f"{prefix}.{ref.path}") for ref in add.writers]
            add.site = prefix
            adds.setdefault(tuple(ref.path for ref in add.writers), add)
        return list(adds.values())

    def _runs_with_arguments(self, module: ModuleNode, args: list[Any]) -> cst.FunctionDef | None:
        """The method to read with the call's own arguments, where a module is no layer applied
        to its input: a plain callable object (diffusers' attention processor, called as
        `self.processor(self, x)`), or a module without parameters or layers handed the stream
        beside its input (`residual_fn(branch, residual)`: the add is in its `forward`)."""
        cls = module.cls
        if cls is None:
            return None
        forward = self.interp.index.find_method(cls, "forward")
        if forward is None:
            found = self.interp.index.find_method(cls, "__call__")
            return found[1] if found is not None else None
        if module.params or module.children or STREAM not in args[1:]:
            return None
        return forward[1]

    def _inline(self, func: cst.FunctionDef, args: list[Any], call: cst.Call, flow: _Flow, depth: int) -> Any:
        """Read a helper's body with the caller's values; its adds are the caller's, at the call."""
        if depth >= MAX_FORWARD_DEPTH:
            return None
        env = Env(_bind_arguments(func, args, call))
        inner = _Flow(
            flow.node,
            depth=depth + 1,
            undecided=flow.undecided,
            block=flow.block,
            recording=flow.recording,
            literals=_tuple_literals(func),
        )
        self.walk_block(func.body.body, env, inner)
        for add in inner.adds:
            add.node, add.statement = call, flow.statement or call
            flow.adds.append(add)
        return merge(inner.returns) if inner.returns else None

    def _apply_module(self, module: ModuleNode, carried: Any, depth: int) -> Any:
        if isinstance(carried, Part):
            # `self.mlp_out(h)` on the MLP's share of a fused projection: content from the stream.
            layer = module.kind in ("linear", "module", "sequential") and not is_norm(module) and not is_gate(module)
            carried = carried.whole if layer else CONDITIONED
        if carried is UNKNOWN or carried is CONDITIONED:
            return CONDITIONED if module.kind in ("linear", "module", "sequential") else UNKNOWN
        if is_norm(module):
            if carried is STREAM:
                return NORMED
            if isinstance(carried, Branch):
                # `x + post_norm(f(norm(x)))`: the norm, not the writer's init, sets the branch scale.
                return replace(carried, renormalised=True)
            return carried
        if module.kind == "activation" and carried is STREAM:
            return ACTIVATED
        if self._passes_through(module):
            return carried
        if module.kind == "sequential" and module.children:
            # nn.Sequential runs its children in order: a LayerNorm first normalises the branch input.
            for child in list(module.children.values())[:MAX_UNROLL]:
                carried = self._apply_module(child, carried, depth)
            return carried
        if isinstance(carried, Branch) and is_gate(module) and not self._multiplies_by_matrix(module, depth):
            return replace(carried, gated=True)
        normed: bool | None = carried is NORMED or isinstance(carried, Branch) and carried.normed
        if carried is MAYBE_NORMED or isinstance(carried, Branch) and carried.normed is None:
            normed = None
        if carried is STREAM and module.kind == "module":
            _, normed = self.writers_of(module, depth)
        return Branch(module.with_alternatives(), normed)


def _fed_raw_weights(name: str, args: list[Any], carried: Any) -> Any:
    """What a call we cannot read returns. `torch.tanh(self.gate)`: a squashed learned scalar is
    still a learned gate (Flamingo). A kernel handed raw weights (`fused_scan(h, out_weight)`)
    applies layers we cannot see after the ones traced so far: the layer applied last is not
    known, so its output is not ours to trace. Anything else hands on what it is given."""
    weights = [a for a in args if isinstance(a, ParamRef)]
    if not weights:
        return carried
    return weights[0] if name in SQUASHING and len(args) == 1 else UNKNOWN


def _gates_untraced_content(left: Any, right: Any) -> bool:
    squashed = [side for side in (left, right) if isinstance(side, Branch) and side.squashed]
    other = right if squashed and squashed[0] is left else left
    return bool(squashed) and any(other is value for value in (UNKNOWN, CONDITIONED, STREAM, NORMED, MAYBE_NORMED))


def _tensor_call(receiver: Any, name: str, args: list[Any], carried: Any) -> Any:
    """`receiver.name(*args)` on what is not a module: a tensor method or a `torch` function."""
    if isinstance(receiver, ParamRef) and name in RESHAPING_METHODS:
        # `self.gamma.unsqueeze(-1).unsqueeze(-1) * branch`: the same learned gain, broadcast.
        return receiver
    if name in NORM_FUNCTIONS:
        return NORMED if carried is STREAM else carried
    if name in ACTIVATION_FUNCTIONS and (carried is STREAM or receiver is STREAM):
        return ACTIVATED  # `F.relu(x)` / `x.relu()` on the stream: a post-activation network
    if name in ("matmul", "bmm") and len(args) == 2 and isinstance(args[1], Branch):
        return args[1]
    if receiver is STREAM or receiver is NORMED or receiver is CONDITIONED or isinstance(receiver, (Branch, Part)):
        # A tensor method (`.view`, `.square()`, `.softmax()`): the value keeps its provenance.
        return receiver
    return carried


def _library_adds(block: ModuleNode, residual: ResidualBlock) -> list[ResidualAdd]:
    """The adds a library block's own `forward` makes (the registry's `residual`), shown at the
    block's construction; its pre-norm switch as the call (or a later assignment) set it, and
    one we cannot decide leaves the norm placement undecided."""
    made = block.created_at
    if made is None:
        return []
    prenorm = truth(block.attrs.get(residual.prenorm.keywords[0], UNKNOWN))
    adds: list[ResidualAdd] = []
    for path in residual.writers:
        add = ResidualAdd(f"{block.type_name}.forward", made, made, prenorm=prenorm, site=path)
        writer = block.descend(path)
        if writer is not None:
            add.writers = [WriterRef(path, block.type_name, writer.name, "library")]
        adds.append(add)
    return adds


def _plain_function(value: Any) -> cst.FunctionDef | None:
    """A module-level function a name stands for (not a method, a closure or a partial)."""
    if isinstance(value, FuncRef) and value.owner is None and value.closure is None and not value.partial_args:
        return value.func
    return None


def _may_not_exist(module: ModuleNode, block: ModuleNode) -> bool:
    """Whether `module`, inside `block`, was built only under a condition `__init__` left undecided."""
    node: ModuleNode | None = module
    while node is not None and node is not block:
        if node.optional:
            return True
        node = node.parent
    return False


def _member(node: ModuleNode, name: str) -> Any:
    """`self.name` in `forward`: a child, a parameter, or a module or lambda stored on it."""
    child = node.children.get(name)
    if child is not None:
        return ModRef(child)
    param = node.params.get(name)
    if param is not None:
        return ParamRef(param)
    stored = node.attrs.get(name)
    return stored if isinstance(stored, (ModRef, Lambda)) else UNKNOWN


def _indexed(node: ModuleNode, index: Any) -> Any:
    """`layer[1]`, `self.to_out[0]`, `self.experts[e]`: the child that index selects."""
    children = list(node.children.values())
    if len(children) == 1 and children[0].repeat is not None:
        return ModRef(children[0])  # any index of a stack selects its representative
    key = index.value if isinstance(index, Const) else None
    if isinstance(key, int) and not isinstance(key, bool) and -len(children) <= key < len(children):
        return ModRef(children[key])
    if isinstance(key, str) and key in node.children:
        return ModRef(node.children[key])
    return UNKNOWN


def _module_items(value: Any) -> list[Any] | None:
    """What a `for` over modules iterates: a container's children (one for a repeated stack)."""
    if isinstance(value, ModRef) and value.node.kind in ("container", "sequential"):
        return [ModRef(child) for child in value.node.children.values()]
    if isinstance(value, Seq) and value.repeat is None and value.items:
        return list(value.items)
    return None


_LISTS = ("container", "sequential")


def _pairwise(assign: cst.Assign) -> list[tuple[cst.BaseExpression, cst.BaseExpression]] | None:
    """`a, b = x, y`: each target with its own value (one target tuple as long as the value
    tuple, nothing starred); None for any other assignment."""
    target, value = assign.targets[0].target, assign.value
    if len(assign.targets) != 1 or not isinstance(target, (cst.Tuple, cst.List)):
        return None
    if not isinstance(value, (cst.Tuple, cst.List)) or len(target.elements) != len(value.elements):
        return None
    if any(isinstance(element, cst.StarredElement) for element in (*target.elements, *value.elements)):
        return None
    return [(t.value, v.value) for t, v in zip(target.elements, value.elements)]


def _walked(
    target: cst.BaseExpression, iterable: cst.BaseExpression, literals: Mapping[str, cst.BaseExpression]
) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
    """A loop's targets paired with what each walks: `enumerate(xs)` hands out an index (which
    walks nothing) beside each item of `xs`, `zip(xs, ys)` an item of each."""
    iterable = _materialised(iterable)
    if isinstance(iterable, cst.Name) and isinstance(literals.get(iterable.value), cst.Call):
        iterable = literals[iterable.value]  # `pairs = list(zip(self.layers, routes))`, walked later
    func = iterable.func.value if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) else None
    calls = iterable.args if isinstance(iterable, cst.Call) else ()
    args = _plain_arguments(calls) if func == "enumerate" else _zipped(calls, literals) if func == "zip" else None
    elements = [element.value for element in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
    if func == "enumerate" and args is not None and len(args) == 1 and len(elements) == 2:
        return [(elements[0], None)] + _walked(elements[1], args[0], literals)
    if func == "zip" and args is not None and len(args) == len(elements) > 1:
        return [pair for element, arg in zip(elements, args) for pair in _walked(element, arg, literals)]
    return [(target, iterable)]


def _plain_arguments(args: Sequence[cst.Arg]) -> list[cst.BaseExpression] | None:
    if any(arg.keyword is not None or arg.star for arg in args):
        return None
    return [arg.value for arg in args]


def _zipped(args: Sequence[cst.Arg], literals: Mapping[str, cst.BaseExpression]) -> list[cst.BaseExpression] | None:
    """What `zip` walks side by side: its arguments, or the items of a tuple spread into it
    (`zip(*pair)` with `pair = (self.layers, gains)` bound once in the function)."""
    spread = args[0].value if len(args) == 1 and args[0].star == "*" and args[0].keyword is None else None
    if isinstance(spread, cst.Name):
        literal = literals.get(spread.value)
        return [element.value for element in literal.elements] if isinstance(literal, (cst.Tuple, cst.List)) else None
    return _plain_arguments(args)


class _TupleLiterals(cst.CSTVisitor):
    """Each name's bindings in a function; a name bound once, to a tuple or list written out
    without a starred item, stands for those items wherever it is spread; one bound once to
    `zip(...)` or `enumerate(...)` (listed or not) walks as that call does."""

    def __init__(self) -> None:
        self.bindings: dict[str, list[cst.BaseExpression | None]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value if len(node.targets) == 1 else None)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target, None)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target, None)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self.bindings.setdefault(target.value, []).append(value)


@functools.lru_cache(maxsize=512)  # a LibCST walk of a whole method; asked again per stack and root
def _tuple_literals(func: cst.FunctionDef) -> Mapping[str, cst.BaseExpression]:
    visitor = _TupleLiterals()
    func.body.visit(visitor)
    literals: dict[str, cst.BaseExpression] = {}
    for name, values in visitor.bindings.items():
        value = _materialised(values[0]) if len(values) == 1 and values[0] is not None else None
        if isinstance(value, (cst.Tuple, cst.List)) and not any(
            isinstance(element, cst.StarredElement) for element in value.elements
        ):
            literals[name] = value
        elif (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("zip", "enumerate")
        ):
            literals[name] = value
    return literals


def _materialised(expression: cst.BaseExpression) -> cst.BaseExpression:
    """`list(zip(xs, ys))` walks as `zip(xs, ys)` does: the list only keeps what it yields."""
    while (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Name)
        and expression.func.value in ("list", "tuple")
        and len(expression.args) == 1
        and not expression.args[0].star
        and expression.args[0].keyword is None
    ):
        expression = expression.args[0].value
    return expression


def _bind(target: cst.BaseExpression, value: Any, env: Env) -> None:
    """A loop target: `for attn, ff in self.layers` unpacks the pair into its two children."""
    if isinstance(target, cst.Name):
        env.names[target.value] = value
        return
    if not isinstance(target, (cst.Tuple, cst.List)):
        return
    parts: list[Any] = []
    if isinstance(value, ModRef):
        parts = _entries(value.node)
    elif isinstance(value, Seq):
        parts = list(value.items)
    for i, element in enumerate(target.elements):
        _bind(element.value, parts[i] if len(parts) == len(target.elements) else UNKNOWN, env)


def _entries(container: ModuleNode) -> list[Any]:
    """What iterating a container yields: its children, and None in the slots of a list built
    with None entries (`ModuleList([norm, None])`)."""
    children = container.children
    slots = container.slots
    if slots is None or not set(children) <= {str(i) for i in range(slots)}:
        return [ModRef(child) for child in children.values()]
    return [ModRef(children[str(i)]) if str(i) in children else Const(None) for i in range(slots)]


class _Assigned(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.names.add(node.target.value)


def _target_names(target: cst.BaseExpression) -> set[str]:
    """The names a loop target binds: `for (attn, ff), gain in ...` binds three."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _target_names(element.value)}
    return set()


def _assigned_names(body: cst.BaseSuite) -> set[str]:
    visitor = _Assigned()
    body.visit(visitor)
    return visitor.names


def _creator(node: ModuleNode) -> ClassInfo | None:
    """The class whose `__init__` created `node`: its nearest ancestor with a class
    (`self.net = nn.Sequential(...)` creates `net.3` in FeedForward)."""
    parent = node.parent
    while parent is not None and parent.cls is None:
        parent = parent.parent
    return parent.cls if parent is not None else None


def _mixed(name: str, args: list[Any], carried: Any) -> Any:
    """A product of computed tensors (`einsum("tei,te->ti", expert_outs, routing_probs)`): where
    one side went through a softmax or sigmoid, it holds the mixing weights, as `probs @ v` does,
    and the content is the other side's."""
    if name not in MATRIX_PRODUCTS:
        return carried
    branches = [arg for arg in args if isinstance(arg, Branch)]
    content = [branch for branch in branches if not branch.squashed]
    return merge(content) if content and len(content) < len(branches) else carried


def _through_matrix(content: Any, weight: ParamRef) -> Any:
    """Content multiplied by a parameter matrix of a module: that parameter writes the result."""
    if not (content is STREAM or content is NORMED or content is MAYBE_NORMED or isinstance(content, Branch)):
        return UNKNOWN
    normed: bool | None = content is NORMED or isinstance(content, Branch) and bool(content.normed)
    if content is MAYBE_NORMED or isinstance(content, Branch) and content.normed is None:
        normed = None
    return Branch((), normed, matrices=(weight.param,))


def _bind_arguments(func: cst.FunctionDef, args: list[Any], call: cst.Call) -> dict[str, Any]:
    """The helper's parameters bound as Python binds them: `args` holds any leading bound values
    (`self`) and then one value per argument of `call`, keywords bound by name."""
    lead = len(args) - len(call.args)
    positional, named = list(args[:lead]), {}
    for arg, value in zip(call.args, args[lead:]):
        if arg.keyword is not None:
            named[arg.keyword.value] = value
        elif arg.star:
            break  # `*rest`: what follows cannot be placed
        else:
            positional.append(value)
    params = func.params
    ordered = list(params.posonly_params) + list(params.params)
    bound = {param.name.value: positional[i] for i, param in enumerate(ordered) if i < len(positional)}
    for param in ordered + list(params.kwonly_params):
        bound.setdefault(param.name.value, named.get(param.name.value, UNKNOWN))
    return bound
