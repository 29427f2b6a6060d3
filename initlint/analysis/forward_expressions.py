"""Reading a `forward`'s expressions for the residual writers (`residual.ForwardReader`).

A mixin of the forward reader: what a name, attribute, subscript, operator or display holds in
the abstract domain of `flow.py`; a product with a learned or conditioned value gates a branch,
one with a number we can evaluate (through the interpreter) is a runtime scale on it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    Const,
    Env,
    FuncRef,
    Lambda,
    MethodChoice,
    ModRef,
    Opaque,
    ParamRef,
    Seq,
    as_number,
)
from initlint.analysis.interp import Ctx
from initlint.analysis.flow import (
    ACTIVATED,
    CONDITIONED,
    MAYBE_NORMED,
    NORMED,
    STREAM,
    Branch,
    Part,
    conditioned,
    merge,
    computed_by_key,
    standardised,
    stored_key,
)
from initlint.analysis.forward_bindings import (
    aligned,
    builtin_call,
    filled_list,
    module_items,
    one_slice,
    plain_arguments,
)
from initlint.analysis.forward_statements import MAX_UNROLL
from initlint.analysis.knowledge.conventions import (
    ADDING_FUNCTIONS,
    ADDING_METHODS,
    LINEAR_FUNCTIONS,
    MATRIX_PRODUCTS,
    TENSOR_METADATA,
    TRANSPOSED_VIEWS,
)
from initlint.analysis.model import ModuleNode, RuntimeScale
from initlint.analysis.python_semantics import characters
from initlint.analysis.values import Monomial

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.forward_statements import _Flow
    from initlint.analysis.interp import Interpreter


class ForwardExpressions:
    """Needs the reader's calls and adds (`residual.ForwardReader`)."""

    interp: Interpreter

    if TYPE_CHECKING:  # declared only: a stub here would hide the reader's own method

        def _call(self, node: cst.Call, env: Env, flow: _Flow, depth: int) -> Any: ...

        def _add(self, left: Any, right: Any, node: cst.CSTNode, flow: _Flow) -> Any: ...

        def add_either(
            self,
            left: Any,
            right: Any,
            operands: tuple[cst.BaseExpression, cst.BaseExpression],
            node: cst.CSTNode,
            flow: _Flow,
        ) -> Any: ...

        def _assign(self, target: cst.BaseExpression, value: Any, env: Env) -> None: ...

        def _apply_module(self, module: ModuleNode, carried: Any, depth: int) -> Any: ...

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
        if (isinstance(other, Part) or other is CONDITIONED) and self._shifted_by_one(other_node, env):
            # `block(h) * (gamma(cond) + 1)`: a modulation computed by a layer, shifted to start
            # at the identity whatever that layer holds (zero-initialised, exactly one): not a
            # gate that starts small, so the branch's writer sets its scale.
            return value
        if isinstance(other, Part) and isinstance(other.whole, Branch) and not other.whole.matrices:
            # A later output of a layer (`h, gate = self.ada_norm(x, c)`): whether it starts small
            # is its layers' init, decided once the init plan is known.
            return replace(value, gate_layers=value.gate_layers + other.whole.last)
        computed_by = env.names.get(computed_by_key(_tensor_name(other_node))) if conditioned(other) else None
        if isinstance(computed_by, ModRef):
            # A part of a layer's output the block split off (`gate_msa` of
            # `self.adaLN_modulation(c).chunk(6)`): as small as that layer starts, decided later.
            return replace(value, gate_layers=value.gate_layers + (computed_by.node,))
        if isinstance(other, ParamRef) and not other.squashed:
            # A learned gate (ReZero's alpha, LayerScale's gamma): deliberate where it starts
            # small, which its init decides once the plan is known.
            return replace(value, gate_params=value.gate_params + other.all_params())
        if isinstance(other, (ParamRef, Branch, Part)) or conditioned(other):
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

    def _shifted_by_one(self, node: cst.BaseExpression, env: Env) -> bool:
        """`gate + 1` or `1. + gate`: a sum with a constant of magnitude one or more."""
        if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Add):
            return False
        numbers = (self._number(side, env) for side in (node.left, node.right))
        return any(number is not None and number.is_constant and abs(number.const) >= 1 for number in numbers)

    def _weight_product(
        self, name: str, resolved: str, weights: list[ParamRef], carried: Any, flow: _Flow, depth: int
    ) -> Any:
        """`F.linear(x, weight)`, `einsum(..., x, self.w2[e])`: content multiplied by a weight
        handed in. None for any other call."""
        if name == "linear" and weights and carried is not UNKNOWN:
            if weights[0].param.owner is flow.node:
                return _through_matrix(carried, weights[0])  # `F.linear(x, self.weight)`: a linear layer's own
            # `F.linear(x, self.proj.weight)`: the layer owning the weight is applied.
            return self._apply_module(weights[0].param.owner, carried, depth)
        if resolved in LINEAR_FUNCTIONS and not weights:
            # `F.linear(x, torch.cat(ws))`: a layer whose weight we cannot trace runs last; what it
            # returns is no longer the input, nor the output of the layer applied before.
            return UNKNOWN
        if name in MATRIX_PRODUCTS and weights:
            return _through_matrix(carried, weights[-1])  # `einsum("th,thd->td", h, self.w2[e])`
        return None

    def _add_call(
        self, call: cst.Call, resolved: str, receiver: Any, args: list[Any], env: Env, flow: _Flow
    ) -> Any | None:
        """`h.add_(x)`, `x.add(branch)`, `torch.add(x, branch, out=x)`: the add `x + branch` written
        as a call, `alpha=` scaling its second operand. In place (`add_`, `out=`), the tensor
        written holds the sum after it, as after `x += branch`. None for any other call."""
        positional = [(arg.value, value) for arg, value in zip(call.args, args) if not arg.keyword and not arg.star]
        named = {arg.keyword.value: (arg.value, value) for arg, value in zip(call.args, args) if arg.keyword}
        func = call.func
        written: cst.BaseExpression | None = None
        if resolved in ADDING_FUNCTIONS and len(positional) == 2:
            operands = positional
            written = named["out"][0] if "out" in named else None
        elif isinstance(func, cst.Attribute) and func.attr.value in ADDING_METHODS and len(positional) == 1:
            operands = [(func.value, receiver), positional[0]]
            written = func.value if func.attr.value.endswith("_") else None
        else:
            return None
        (left_node, left), (right_node, right) = operands
        if "alpha" in named:
            right = self._scale(right, named["alpha"][1], named["alpha"][0], cst.Multiply(), env, call)
        total = self.add_either(left, right, (left_node, right_node), call, flow)
        if written is not None:
            self._assign(written, total, env)
        return total

    def _value(self, node: cst.BaseExpression, env: Env) -> Any:
        """Evaluate an expression with the interpreter, `self` bound to the module node (and the
        constants a loop hands out beside the blocks: the kind of each)."""
        numeric_env = Env({k: v for k, v in env.names.items() if isinstance(v, (ModRef, Const))})
        try:
            return self.interp.eval(node, numeric_env, Ctx(certain=False))
        except RecursionError:
            return UNKNOWN

    def _number(self, node: cst.BaseExpression, env: Env) -> Monomial | None:
        return as_number(self._value(node, env))

    def _walked(self, node: cst.BaseExpression, env: Env, flow: _Flow) -> Any:
        """What a `for` walks. A string the module holds (`for step in self.sequence:`, a
        config's `"dr"`) is walked character by character, as Python does, so that each pass's
        `if step == "r":` is decided; a string the interpreter cannot see stays unknown."""
        walked = self._eval(node, env, flow, flow.depth)
        if walked is not UNKNOWN or not isinstance(node, (cst.Name, cst.Attribute)):
            return walked  # (a call is not evaluated twice)
        value = self._value(node, env)
        text = characters(self.interp, value) if isinstance(value, (Const, Opaque)) else None
        return walked if text is None else text

    def _eval(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> Any:
        self.interp.tick()
        if isinstance(node, cst.Name):
            flow.runs.read.add(node.value)
            if node.value not in env.names and node.value in self.interp.index.functions:
                # A function of the file handed on as a value (`wrap = checkpointed if c else
                # identity`; `map(wrap, (attn, ff))`): called later, it runs as written.
                return FuncRef(self.interp.index.functions[node.value])
            return env.names.get(node.value, UNKNOWN)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, env, flow, depth)
        if isinstance(node, cst.Call):
            return self._call(node, env, flow, depth)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, env, flow, depth)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, env, flow, depth)
        if isinstance(node, cst.Dict):
            return self._record(node, env, flow, depth)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return self._comprehension(node, env, flow, depth)
        if isinstance(node, (cst.Tuple, cst.List)):
            # `return out, weights`: a module's output comes first. Each item is kept for a call
            # handed the tuple (`self.joint_attn((text, image))`: one input per stream); an empty
            # list is one `forward` fills by `append`.
            values = [self._eval(e.value, env, flow, depth) for e in node.elements]
            if values and not any(isinstance(element, cst.StarredElement) for element in node.elements):
                flow.written[id(node)] = Seq(values)
                if isinstance(node, cst.List) and all(value is STREAM for value in values):
                    # `states = [x]`: the stream's states, a list `forward` fills as it goes.
                    return Seq(values, written_as="list")
            return values[0] if values else Seq([], written_as="list") if isinstance(node, cst.List) else UNKNOWN
        if isinstance(node, cst.IfExp):
            body = self._eval(node.body, env, flow, depth)
            orelse = self._eval(node.orelse, env, flow, depth)
            return body if body is not UNKNOWN else orelse
        if isinstance(node, cst.Lambda):
            # `lambda h: self.attn(h, h, h)` handed to a residual wrapper: read where it is called.
            return Lambda(node, closure=Env(dict(env.names)))
        return UNKNOWN

    def _subscript(self, node: cst.Subscript, env: Env, flow: _Flow, depth: int) -> Any:
        """`self.blocks[i]`, `args[0]`, `x[:, 1:]`: an entry of a container, an item of a tuple
        known item by item, a view of a tensor; anything else reads as what it indexes."""
        base = self._eval(node.value, env, flow, depth)
        if isinstance(base, ModRef) and flow.block is not None and _by_counter(node, flow.counter):
            # The loop over the block's container by index: its block, and the entry of a
            # list built beside it (`self.norms[i]`) at the block's place.
            return ModRef(flow.block) if base.node is flow.block.parent else aligned(base, flow.block)
        if isinstance(base, ModRef) and _list_of_blocks(base.node) and one_slice(node):
            # `self.blocks[start:]`, `layers[:exit_at]`: a slice of a list of blocks is a list of
            # the same blocks, walked as the list itself is (not the entry an index would select).
            return base
        if isinstance(base, ModRef):
            index = (
                self._value(node.slice[0].slice.value, env) if isinstance(node.slice[0].slice, cst.Index) else UNKNOWN
            )
            return _indexed(base.node, index)
        single = node.slice[0].slice if len(node.slice) == 1 else None
        if isinstance(base, Seq) and base.repeat is None and isinstance(single, cst.Index):
            item = _item(base, self._value(single.value, env))
            if item is not None:
                return item
        if any(isinstance(element.slice, cst.Slice) for element in node.slice):
            return _sliced(base, len(node.slice))
        return base

    def _attribute(self, node: cst.Attribute, env: Env, flow: _Flow, depth: int) -> Any:
        """A module's member, what this `forward` stored in an attribute earlier, or a tensor's
        attribute (`x.mT` is still the stream; `x.shape` is not)."""
        stored = stored_key(node.value.value, node.attr.value) if isinstance(node.value, cst.Name) else None
        if stored in env.names:
            return env.names[stored]
        base = self._eval(node.value, env, flow, depth)
        if isinstance(base, ModRef):
            member = _member(base.node, node.attr.value)
            if isinstance(member, ModRef) and member.node.kind in ("container", "sequential"):
                flow.loops.container_read(member.node)
            if member is UNKNOWN and (base.node is flow.node or base.node is flow.inlined):
                return self._own_method(base.node, node.attr.value)
            return member
        if node.attr.value in TENSOR_METADATA:
            return UNKNOWN
        if isinstance(base, ParamRef) and node.attr.value in TRANSPOSED_VIEWS:
            return base  # `x @ self.weight.T`: the same matrix
        return base if base is STREAM or base is NORMED or isinstance(base, Branch) else UNKNOWN

    def _own_method(self, node: ModuleNode, name: str) -> Any:
        """`run = self.to_layers` in `forward`: the module's own method, bound, to be called later
        as `self.to_layers(...)` is."""
        found = self.interp.index.find_method(node.cls, name) if node.cls is not None and name != "forward" else None
        return FuncRef(found[1], found[0], ModRef(node)) if found is not None else UNKNOWN

    def _comprehension(self, node: cst.ListComp | cst.GeneratorExp, env: Env, flow: _Flow, depth: int) -> Any:
        """`[self.fn(piece) for piece in x.chunk(n, dim=1)]`: each item is the element computed
        from a part of the tensor walked (a slice keeps where it came from); like a list written
        out, the comprehension stands for its item. Only one plain `for` over a tensor, or over
        a list of layers, is read: `[head(x) for head in self.heads]` (attention as a list of
        single-head modules) holds what each layer makes of its input, the first standing for
        all as in a list written out."""
        loop = node.for_in
        if loop.inner_for_in is None and not loop.ifs and isinstance(loop.target, cst.Tuple):
            return self._over_zipped_tensors(node, env, flow, depth)
        if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name):
            return UNKNOWN
        walked = self._eval(loop.iter, env, flow, depth)
        layers = module_items(walked)
        if layers is not None:
            return self._over_layers(node.elt, loop.target.value, layers, env, flow, depth)
        if not (walked is STREAM or walked is NORMED or walked is MAYBE_NORMED or isinstance(walked, Branch)):
            return UNKNOWN
        inner = Env(dict(env.names))
        inner.names[loop.target.value] = walked
        return self._eval(node.elt, inner, flow, depth)

    def _over_zipped_tensors(self, node: cst.ListComp | cst.GeneratorExp, env: Env, flow: _Flow, depth: int) -> Any:
        """`tuple(einx.add(p, nt, et) for nt, et in zip(nodes_qkv, edges_qkv))`: tensors zipped
        slice by slice, their number unknown; each item is computed from one slice of each, and
        a slice holds what its tensor holds. A list of layers or values zipped is not read here
        (`_comprehended` reads it where the items are unpacked)."""
        walked = node.for_in.iter
        names = _zip_targets(node.for_in.target, walked, env)
        if names is None:
            return UNKNOWN
        assert isinstance(walked, cst.Call)
        values = [self._eval(arg.value, env, flow, depth) for arg in walked.args]
        carried = [v is STREAM or v is NORMED or v is MAYBE_NORMED or isinstance(v, Branch) for v in values]
        if not any(carried) or any(isinstance(v, (ModRef, Seq)) for v in values):
            return UNKNOWN
        inner = Env(dict(env.names))
        inner.names.update(zip(names, values))
        return self._eval(node.elt, inner, flow, depth)

    def _over_layers(
        self, element: cst.BaseExpression, target: str, layers: list[Any], env: Env, flow: _Flow, depth: int
    ) -> Any:
        """The items of a comprehension walking a list of layers, each element computed with the
        target bound to one layer in turn: the first that is known."""
        for layer in layers[:MAX_UNROLL]:
            inner = Env(dict(env.names))
            inner.names[target] = layer
            value = self._eval(element, inner, flow, depth)
            if value is not UNKNOWN:
                return value
        return UNKNOWN

    def _comprehended(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> Seq | None:
        """`q, k, v = tuple(rearrange(t, "b n (h d) -> b h n d") for t in (q, k, v))` unpacked:
        each item of the tuple written out is computed on its own, so each keeps what it held (a
        share of a fused projection stays that share). None for any other value."""
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in ("tuple", "list")
            and node.func.value not in env.names
            and len(node.args) == 1
            and node.args[0].keyword is None
            and not node.args[0].star
        ):
            node = node.args[0].value
        if not isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return None
        loop = node.for_in
        if loop.inner_for_in is not None or loop.ifs:
            return None
        bindings = self._written_items(loop, env, flow, depth)
        if bindings is None:
            return None
        items = []
        for names in bindings:
            inner = Env(dict(env.names))
            inner.names.update(names)
            items.append(self._eval(node.elt, inner, flow, depth))
        return Seq(items)

    def _written_items(self, loop: cst.CompFor, env: Env, flow: _Flow, depth: int) -> list[dict[str, Any]] | None:
        """What each item of a comprehension over a tuple written out binds: `for t in (q, k, v)`,
        or `for proj, t in zip(self.projections, (query, key, value))`, which hands each layer of
        a list of layers the input at its place (the Annotated Transformer's attention). None for
        any other loop."""
        target, walked = loop.target, loop.iter
        if isinstance(target, cst.Name):
            column = _written_out(walked)
            if column is None:
                return None
            return [{target.value: self._eval(element, env, flow, depth)} for element in column]
        names = _zip_targets(target, walked, env)
        if names is None:
            return None
        assert isinstance(walked, cst.Call)
        columns = [self._zipped_column(arg.value, env, flow, depth) for arg in walked.args]
        layers = [len(c) for c in columns if c and all(isinstance(v, ModRef) for v in c)]
        # A tensor beside a list of layers hands each layer a slice of what it holds (`proj(t)
        # for t, proj in zip(out.split(sizes, dim=1), self.to_out)`: one output per stream).
        columns = [
            c * layers[0] if c is not None and len(c) == 1 and _tensor_column(c) and layers else c for c in columns
        ]
        sizes = [len(column) for column in columns if column is not None]
        written = [
            column
            for arg, column in zip(walked.args, columns)
            if _written_out(arg.value) is not None or column is not None and _tensor_column(column)
        ]
        # The inputs written out, the layers a list of layers (a tuple of norms written out beside
        # the shares of a fused projection is not read: a normalised share reads as a gate).
        if len(sizes) < len(columns) or not written or any(isinstance(v, ModRef) for c in written for v in c or ()):
            return None
        return [
            {name: column[i] for name, column in zip(names, columns) if column is not None} for i in range(min(sizes))
        ]

    def _zipped_column(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> list[Any] | None:
        """The values one argument of `zip` hands out in turn: the entries of a tuple written out,
        or the layers of a list of layers, in order. None for anything else."""
        written = _written_out(node)
        if written is not None:
            return [self._eval(element, env, flow, depth) for element in written]
        value = self._eval(node, env, flow, depth)
        if isinstance(value, Seq) and filled_list(value) and value.items:
            return list(value.items)  # `outs`, filled by `append`
        if value is NORMED or isinstance(value, Branch):
            return [value]  # a tensor: each slice holds what it holds
        if not isinstance(value, ModRef) or value.node.kind not in ("container", "sequential"):
            return None
        children = list(value.node.children.values())
        if not children or any(child.repeat is not None for child in children):
            return None  # a stack of blocks, its length not written out
        return [ModRef(child) for child in children]

    def _record(self, node: cst.Dict, env: Env, flow: _Flow, depth: int) -> Any:
        """`return {"hidden_states": out, "sequence_mask": mask}`: the one entry computed from the
        input is the output the caller reads back by its key; with two, which is read is unknown."""
        values = [self._eval(e.value, env, flow, depth) for e in node.elements if isinstance(e, cst.DictElement)]
        carried = [v for v in values if v is STREAM or v is NORMED or v is MAYBE_NORMED or isinstance(v, Branch)]
        return carried[0] if len(carried) == 1 else UNKNOWN

    def _binary(self, node: cst.BinaryOperation, env: Env, flow: _Flow, depth: int) -> Any:
        left = self._eval(node.left, env, flow, depth)
        right = self._eval(node.right, env, flow, depth)
        normed = standardised(left, right, node.operator, node.right)
        if normed is not None:
            return normed  # `(x - mean) / std`: a norm written out
        if isinstance(node.operator, cst.Add):
            return self.add_either(left, right, (node.left, node.right), node, flow)
        if isinstance(node.operator, (cst.Multiply, cst.Divide)):
            if isinstance(left, Branch) and isinstance(right, Branch):
                # `sigmoid(gate(x)) * expert(x)`: the squashed side gates the other.
                if left.squashed != right.squashed:
                    content = right if left.squashed else left
                    return replace(content, gated=True)
                return merge([left, right])
            gated_norm = _normalised_times_squashed_gate(left, right)
            if gated_norm is not None:
                # `y * sigmoid(gate(y))` with y normalised: each entry of y is scaled by at most
                # one, so the value is still the normalised input (a gated norm), not a branch.
                return gated_norm
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
            # `probs @ v`: the content is v's, also when v is a share of a fused projection.
            return right if isinstance(right, (Branch, Part)) else left
        return (
            merge([left, right])
            if isinstance(node.operator, cst.Subtract)
            else (left if left is not UNKNOWN else right)
        )


def _normalised_times_squashed_gate(left: Any, right: Any) -> Any:
    for gate, other in ((left, right), (right, left)):
        if isinstance(gate, Branch) and gate.squashed and (other is NORMED or other is MAYBE_NORMED):
            return other
    return None


def _gates_untraced_content(left: Any, right: Any) -> bool:
    squashed = [side for side in (left, right) if isinstance(side, Branch) and side.squashed]
    other = right if squashed and squashed[0] is left else left
    return bool(squashed) and any(other is value for value in (UNKNOWN, CONDITIONED, STREAM, NORMED, MAYBE_NORMED))


def _plain_zip(node: cst.BaseExpression, env: Env) -> bool:
    """`zip(a, b)`: the builtin, its arguments neither named nor spread."""
    return builtin_call(node, "zip", env) and plain_arguments(node.args) is not None


def _zip_targets(target: cst.BaseExpression, walked: cst.BaseExpression, env: Env) -> list[str] | None:
    """`for a, b in zip(xs, ys)`: the names, one per zipped argument; None for any other loop."""
    if not isinstance(target, cst.Tuple) or not _plain_zip(walked, env):
        return None
    assert isinstance(walked, cst.Call)
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
    if len(names) != len(target.elements) or len(names) != len(walked.args):
        return None
    return names


def _tensor_name(node: cst.BaseExpression) -> str:
    """The name a tensor expression starts from (`gate` of `gate.unsqueeze(1)`, `gate[:, None]`);
    empty for anything else."""
    while isinstance(node, (cst.Call, cst.Subscript, cst.Attribute)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else ""


def _tensor_column(column: list[Any]) -> bool:
    return all(value is NORMED or isinstance(value, Branch) for value in column)


def _written_out(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The entries of a tuple or list written out (`(q, k, v)`), none of them spread."""
    if not isinstance(node, (cst.Tuple, cst.List)) or not all(isinstance(e, cst.Element) for e in node.elements):
        return None
    return [element.value for element in node.elements]


def _member(node: ModuleNode, name: str) -> Any:
    """`self.name` in `forward`: a child, a parameter, a module, lambda or method stored on it
    (`self.ff_fn = self.ff`), or a tuple of constants (the kind of each layer, walked beside the
    layers)."""
    child = node.children.get(name)
    if child is not None:
        return ModRef(child)
    param = node.params.get(name)
    if param is not None:
        return ParamRef(param)
    stored = node.attrs.get(name)
    if isinstance(stored, Seq) and all(isinstance(item, Const) for item in stored.items):
        return stored
    return stored if isinstance(stored, (ModRef, Lambda, FuncRef, MethodChoice)) else UNKNOWN


def _indexed(node: ModuleNode, index: Any) -> Any:
    """`layer[1]`, `self.to_out[0]`, `self.experts[e]`: the child that index selects."""
    children = list(node.children.values())
    if len(children) == 1 and children[0].repeat is not None:
        return ModRef(children[0])  # any index of a stack selects its representative
    key = index.value if isinstance(index, Const) else _whole_number(index)
    if isinstance(key, int) and not isinstance(key, bool) and str(key) in node.children:
        return ModRef(node.children[str(key)])  # (an entry we could not build still took its index)
    if isinstance(key, int) and not isinstance(key, bool) and -len(children) <= key < 0:
        return ModRef(children[key])
    if isinstance(key, str) and key in node.children:
        return ModRef(node.children[key])
    return UNKNOWN


def _list_of_blocks(node: ModuleNode) -> bool:
    """A ModuleList, or a Sequential of one repeated block (not `self.mlp[:-1]`, some of a
    Sequential's distinct layers applied)."""
    children = list(node.children.values())
    stacked = len(children) == 1 and children[0].repeat is not None
    return node.kind == "container" or (node.kind == "sequential" and stacked)


def _by_counter(node: cst.Subscript, counter: str | None) -> bool:
    index = node.slice[0].slice if len(node.slice) == 1 else None
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == counter


def _whole_number(value: Any) -> int | None:
    """A constant whole number computed by the interpreter (`-1` is `-(1)`: a number, no literal)."""
    number = as_number(value)
    if number is None or not number.is_constant or not float(number.const).is_integer():
        return None
    return int(number.const)


def _through_matrix(content: Any, weight: ParamRef) -> Any:
    """Content multiplied by a parameter matrix of a module: that parameter writes the result,
    also where an activation came first (`F.linear(F.silu(x), self.base_weight)`), as a layer
    applied after one does."""
    content_kinds = (STREAM, NORMED, MAYBE_NORMED, ACTIVATED)
    if not (any(content is kind for kind in content_kinds) or isinstance(content, Branch)):
        return UNKNOWN
    normed: bool | None = content is NORMED or isinstance(content, Branch) and bool(content.normed)
    if content is MAYBE_NORMED or isinstance(content, Branch) and content.normed is None:
        normed = None
    return Branch((), normed, matrices=(weight.param,))


def _item(base: Seq, index: Any) -> Any:
    """`args[0]` of a tuple this reading knows item by item (`forward(self, *args)` is handed
    the stream first); None where the index is no integer within it."""
    position = index.value if isinstance(index, Const) else None
    if not isinstance(position, int) or isinstance(position, bool):
        return None
    return base.items[position] if -len(base.items) <= position < len(base.items) else None


def _sliced(base: Any, axes: int) -> Any:
    """`outputs[1:]` is the attention weights riding along a module's output tuple, not its
    output. Indexed by several axes at once (`x[:, 1:, :]`), only a tensor can be: a view of
    the stream or of a branch stays what it was. A view of anything else (`paddings[:, :, None]`,
    a mask the caller hands in) is not known to gate like the tensor it came from."""
    if axes > 1 and (base is STREAM or base is NORMED or base is MAYBE_NORMED or isinstance(base, Branch)):
        return base
    return UNKNOWN
