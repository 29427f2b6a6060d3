"""Reading a `forward`'s calls for the residual writers (`residual.ForwardReader`).

A mixin of the forward reader: a call applies a layer (a norm, a gate, a linear: the branch's
last layer), runs a helper of the file or a method of the module with the caller's values (its
adds are the caller's), or is a tensor method or `torch` function that keeps, mixes or drops
what it is handed. The adds a called module makes itself (a residual wrapper, a fused
add-and-norm, a stream connection) are read in `forward_adders`.
"""

from __future__ import annotations

import functools

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence, TypeGuard

import libcst as cst

from initlint.analysis.abstract import (
    UNKNOWN,
    ClassRef,
    Env,
    FuncRef,
    Lambda,
    MethodChoice,
    ModRef,
    ParamRef,
    Seq,
    bound_method,
)
from initlint.analysis.records import class_fields, factory_fields
from initlint.analysis.forward_adders import _items_handed_back
from initlint.analysis.forward_expressions import _member
from initlint.analysis.forward_bindings import sliced_names, tuple_literals
from initlint.analysis.forward_statements import MAX_FORWARD_DEPTH, MAX_UNROLL, _Flow, _plain_function, note_loop_call
from initlint.analysis.forward_tensors import (
    accumulated_in_place,
    appended,
    carried_by,
    fed_raw_weights,
    masked_scatter,
    mixed,
    mixes_depths,
    of_streams,
    packed,
    reset_if_stream,
    stream_beside,
    tensor_call,
    unpacked,
)
from initlint.analysis.flow import (
    ACTIVATED,
    CONDITIONED,
    MAYBE_NORMED,
    NORMED,
    SECOND,
    STREAM,
    Adder,
    Branch,
    Part,
    conditioned,
    is_gate,
    is_norm,
    is_squashing,
    join,
    merge,
)
from initlint.analysis.knowledge.conventions import (
    CONCATENATING,
    FRESH_TENSORS,
    NORM_FUNCTIONS,
    RETURNS_ARGUMENT,
    RUNS_AS_ARGUMENT,
    SQUASHING,
    TENSOR_METADATA,
)
from initlint.analysis.call_arguments import bind_arguments
from initlint.analysis.knowledge.specs import CallsArgument, Packing
from initlint.analysis.model import ModuleNode, ResidualAdd

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Interpreter
    from initlint.analysis.residual import _Found


class ForwardCalls:
    """Needs the reader's statements, expressions and writer search (`residual.ForwardReader`)."""

    interp: Interpreter

    if TYPE_CHECKING:  # declared only: a stub here would hide the reader's own method

        def walk_block(self, stmts: Sequence[cst.CSTNode], env: Env, state: _Flow) -> None: ...

        def walk_body(self, stmts: Sequence[cst.CSTNode], env: Env, flow: _Flow) -> bool: ...

        def _eval(self, node: cst.BaseExpression, env: Env, flow: _Flow, depth: int) -> Any: ...

        def _value(self, node: cst.BaseExpression, env: Env) -> Any: ...

        def _read(
            self, node: ModuleNode, depth: int, block: ModuleNode | None = None, handed: Mapping[str, Any] | None = None
        ) -> _Flow | None: ...

        def writers_of(self, node: ModuleNode, depth: int = 0) -> tuple[list[_Found], bool]: ...

        def reads_only_metadata(self, node: ModuleNode, depth: int) -> bool: ...

        def _passes_through(self, module: ModuleNode) -> bool: ...

        def _multiplies_by_matrix(self, module: ModuleNode, depth: int) -> bool: ...

        def _normalises(self, module: ModuleNode, depth: int) -> bool: ...

        def _add(self, left: Any, right: Any, node: cst.CSTNode, flow: _Flow) -> Any: ...

        def _add_call(
            self, call: cst.Call, name: str, receiver: Any, args: list[Any], env: Env, flow: _Flow
        ) -> Any: ...

        def _weight_product(
            self, name: str, resolved: str, weights: list[ParamRef], carried: Any, flow: _Flow, depth: int
        ) -> Any: ...

        def _ends_in_norm(self, module: ModuleNode, depth: int) -> bool: ...

        def _apply_called(
            self, module: ModuleNode, call: cst.Call, args: list[Any], carried: Any, depth: int
        ) -> Any: ...

        def _adding_layer(
            self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any
        ) -> Any: ...

        def _added(self, adder: Adder, output: Any, call: cst.Call, flow: _Flow) -> Any: ...

        def _adds_within(
            self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int
        ) -> list[ResidualAdd] | None: ...

        def _adds_beside(self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int) -> Any: ...

        def _adds_into_second(self, module: ModuleNode, call: cst.Call, flow: _Flow, depth: int) -> Any: ...

    def _call(self, node: cst.Call, env: Env, flow: _Flow, depth: int) -> Any:
        resolved = self.interp.index.resolve(node.func) or ""
        args = self._arguments(node, resolved, env, flow, depth)
        carried = carried_by(node, args)
        func = node.func
        described, value = self._library_function(node, resolved, args, env, flow, depth)
        if described:
            return value
        if isinstance(func, cst.Name) and func.value not in env.names:
            return self._call_name(func.value, resolved, node, args, env, flow, depth, carried)
        if isinstance(func, (cst.Subscript, cst.Name)):
            return self._call_value(self._eval(func, env, flow, depth), node, args, flow, depth, carried)
        if not isinstance(func, cst.Attribute):
            return carried
        name = func.attr.value
        weights = [a for a in args if isinstance(a, ParamRef)]
        # `F.linear(F.silu(x), self.base_weight)`: the activated input is the content it multiplies.
        content = ACTIVATED if carried is UNKNOWN and args[:1] == [ACTIVATED] else carried
        product = self._weight_product(name, resolved, weights, content, flow, depth)
        if product is not None:
            return product
        carried = mixed(name, args, carried)
        if name in FRESH_TENSORS:
            return UNKNOWN  # `torch.zeros_like(x)`: a new tensor, not the stream
        accumulated = accumulated_in_place(name, func.value, args, env)
        if accumulated is not None:
            return accumulated
        if appended(name, func.value, args, env):
            return UNKNOWN
        if weights and not (name in NORM_FUNCTIONS and carried is STREAM):
            # (`F.layer_norm(x, shape, self.norm.weight)`: the stream normalised, given its gain.)
            return fed_raw_weights(name, args, carried)
        if name in SQUASHING and isinstance(carried, Branch):
            return replace(carried, squashed=True)
        if name in ("forward", "__call__") and _is_super(func.value) and flow.node.kind in ("sequential", "norm"):
            return self._inherited_forward(flow.node, carried, depth)
        receiver = self._eval(func.value, env, flow, depth)
        if isinstance(receiver, ModRef):
            return self._module_call(receiver.node, name, node, args, flow, depth, carried)
        if name == "masked_scatter" and len(args) == 2:
            return masked_scatter(func.value, node.args[0].value, receiver, args[1], env, flow)
        added = self._add_call(node, resolved, receiver, args, env, flow)
        if added is not None:
            return added  # `x.add_(branch)`, `torch.add(x, branch, out=x)`
        return UNKNOWN if name in TENSOR_METADATA else tensor_call(receiver, name, args, carried)

    def _inherited_forward(self, module: ModuleNode, carried: Any, depth: int) -> Any:
        """`super().forward(x)` in a subclass of a library container or norm: `return x +
        super().forward(x)` in a subclass of `nn.Sequential` runs the children in order;
        `super().forward(x) * (1 + scale) + shift` in a subclass of `nn.LayerNorm` normalises
        what it is handed."""
        if module.kind == "sequential":
            return self._in_order(module, carried, depth)
        return self._apply_module(module, carried, depth)

    def _arguments(self, node: cst.Call, resolved: str, env: Env, flow: _Flow, depth: int) -> list[Any]:
        """The call's arguments, read with the names they read kept apart from those the
        statement read before the call: those are what a block of a loop is handed."""
        read_before, flow.runs.read = flow.runs.read, set()
        joins, packs = resolved in CONCATENATING, self._packing(resolved) is not None
        try:
            args = [self._argument(arg.value, joins, packs, env, flow, depth) for arg in node.args]
        finally:
            handed, flow.runs.read = flow.runs.read, read_before
            read_before |= handed
        note_loop_call(node.func, handed, flow)
        return args

    def _call_name(
        self, name: str, resolved: str, call: cst.Call, args: list[Any], env: Env, flow: _Flow, depth: int, carried: Any
    ) -> Any:
        """A name `forward` does not bind: `map(...)`, a function of the file or one it imports. A
        torch or einops function imported by name (`from torch import einsum`) multiplies by the
        weight it is handed, or mixes, as `torch.einsum(...)` does."""
        mapped = self._mapped(call, args, env, flow, depth)
        if mapped is not None:
            return mapped
        if self.interp.knowledge.computes_as_torch(resolved) and name not in self.interp.index.functions:
            function = resolved.rpartition(".")[2]
            weights = [a for a in args if isinstance(a, ParamRef)]
            product = self._weight_product(function, resolved, weights, carried, flow, depth)
            if product is not None:
                return product
            carried = mixed(function, args, carried)
        return self._call_global(name, call, args, flow, depth, carried)

    def _library_function(
        self, call: cst.Call, resolved: str, args: list[Any], env: Env, flow: _Flow, depth: int
    ) -> tuple[bool, Any]:
        """(whether the registry describes the called function, by its resolved name, what the call
        gives): `typing.cast(T, x)` is `x`; `checkpoint(fn, x)` runs `fn(x)`; `pack([cls, x], "b *
        d")` joins its pieces."""
        packing = self._packing(resolved)
        if packing is not None:
            return True, _packing(packing, call, args)
        returned = RETURNS_ARGUMENT.get(resolved, RUNS_AS_ARGUMENT.get(resolved))
        if returned is not None and len(args) > returned:
            bound = tuple(args[returned + 1 :])
            if resolved in RUNS_AS_ARGUMENT and isinstance(args[returned], FuncRef) and bound:
                # `partial(rotate, freqs)`: a call fills the parameters after those bound here,
                # which this reading does not place; the function is not run as written.
                return True, replace(args[returned], partial_args=bound)
            return True, args[returned]
        through = self.interp.knowledge.calls_argument(resolved) if resolved else None
        return (True, self._call_through(call, through, env, flow, depth)) if through is not None else (False, None)

    def _packing(self, resolved: str) -> Packing | None:
        return self.interp.knowledge.packing(resolved) if resolved else None

    def _call_through(self, call: cst.Call, through: CallsArgument, env: Env, flow: _Flow, depth: int) -> Any:
        """`checkpoint(self.attn, self.norm(x))`: the handed callable runs on the positional
        arguments after it, read as the direct call `self.attn(self.norm(x))` is."""
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        if len(positional) <= through.function:
            return UNKNOWN
        direct = call.with_changes(func=positional[through.function].value, args=positional[through.inputs_from :])
        return self._call(direct, env, flow, depth)

    def _argument(self, value: cst.BaseExpression, joins: bool, items: bool, env: Env, flow: _Flow, depth: int) -> Any:
        """An argument's value; a sequence written out for a function that joins its tensors
        (`torch.cat((memory_v, v), dim=-2)`) holds every part, not only the first; for one that
        packs them (`pack([cls, x], "b * d")`), each part is kept as an item."""
        if (joins or items) and isinstance(value, (cst.Tuple, cst.List)):
            parts = [self._eval(element.value, env, flow, depth) for element in value.elements]
            if not items:
                return merge(parts)
            starred = any(isinstance(element, cst.StarredElement) for element in value.elements)
            return merge(parts) if starred else Seq(parts)
        return self._eval(value, env, flow, depth)

    def _module_call(
        self, module: ModuleNode, name: str, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any
    ) -> Any:
        """`module.name(...)`: a child or lambda it holds, its own `forward`, its children, a helper."""
        member = _member(module, name)
        if isinstance(member, (ModRef, Lambda, FuncRef, MethodChoice)):
            return self._call_value(member, call, args, flow, depth, carried)
        if name in ("forward", "__call__") and module is not flow.node:
            # `self.attention.forward(h)` is the call `self.attention(h)`: its own adds included.
            return self._call_value(ModRef(module), call, args, flow, depth, carried)
        if name in ("values", "children") and module.kind in ("container", "sequential"):
            return Seq([ModRef(child) for child in module.children.values()])
        if (module is flow.node or module is flow.inlined) and module.cls is not None:
            return self._method(module, name, call, args, flow, depth) or carried
        # `self.memory.mix_into(out, q)`: a child's helper runs as written where its class is in
        # the project, `self` the child; another package's helper is unknown. The adds it makes
        # into what it is handed (gemma3n's `self.altup.predict(streams)`) mix streams of its
        # own: they are not this block's residual adds, nor its coefficient layers writers.
        before = len(flow.adds)
        result = self._method(module, name, call, args, flow, depth)
        del flow.adds[before:]
        return UNKNOWN if result is None else result

    def _method(self, node: ModuleNode, name: str, call: cst.Call, args: list[Any], flow: _Flow, depth: int) -> Any:
        """A helper method of the same module (`self._attn(q, k, v)`): what it returns."""
        found = self.interp.index.find_method(node.cls, name) if node.cls is not None else None
        if found is None or name == "forward":
            return None
        return self._inline(found[1], [ModRef(node)] + args, call, flow, depth)

    def _mapped(self, call: cst.Call, args: list[Any], env: Env, flow: _Flow, depth: int) -> Seq | None:
        """`q, k, v = map(self.split_heads, (q, k, v))`, or a lambda mapped so: each item of a
        tuple written out is mapped on its own, so each keeps what it held (a share of a fused
        projection stays that share). None for anything else `map` is called with."""
        if not isinstance(call.func, cst.Name) or call.func.value != "map" or "map" in self.interp.index.functions:
            return None
        if len(call.args) != 2 or any(a.keyword or a.star for a in call.args):
            return None
        written = call.args[1].value
        callee = args[0]
        if not isinstance(written, (cst.Tuple, cst.List)) or not isinstance(callee, (ModRef, Lambda, FuncRef)):
            return None
        if any(isinstance(element, cst.StarredElement) for element in written.elements):
            return None
        items = [self._eval(element.value, env, flow, depth) for element in written.elements]
        if isinstance(callee, ModRef):
            return Seq([self._apply_module(callee.node, carried_by(call, [item]), depth) for item in items])
        return Seq([self._call_value(callee, call, [item], flow, depth, carried_by(call, [item])) for item in items])

    def _call_global(self, name: str, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any) -> Any:
        """A function of the file (`dropout_add(out, residual, p, training)`), or one it imports
        from another file of the project, runs with its arguments."""
        callee = self._value(call.func, Env())
        func = self.interp.index.functions.get(name) or _plain_function(callee)
        if func is None and name in ("tuple", "list") and len(args) == 1 and isinstance(args[0], Seq):
            return args[0]  # `tuple(outs)`: the same items
        fields = (
            class_fields(self.interp.index, callee.cls)
            if isinstance(callee, ClassRef)
            else factory_fields(self.interp.index, name)
        )
        if func is None and fields:
            return _first_field(fields, call, args)
        if func is None:
            # Only past a traced layer: a fused norm handed the stream and its gain (`layer_norm_fn(x,
            # self.norm.weight)`) leaves the stream as it was read before.
            return fed_raw_weights(name, args, carried) if isinstance(carried, (Branch, Part)) else carried
        result = self._inline(func, args, call, flow, depth)
        return carried if result is None else result

    def _call_value(self, callee: Any, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any) -> Any:
        if isinstance(callee, Adder):
            return self._added(callee, args[0] if args else UNKNOWN, call, flow)
        if isinstance(callee, ModRef):
            flow.runs.block_called(callee.node)
            adding = self._adding_layer(callee.node, call, args, flow, depth, carried)
            if adding is not None:
                return adding
            found = self._runs_with_arguments(callee.node, args)
            if found is not None:
                result = self._inline(found, [callee] + args, call, flow, depth)
                return carried if result is None else result
            if (
                carried is STREAM
                and flow.recording
                and self._recorded_adds_within(callee.node, call, args, flow, depth)
            ):
                return STREAM
            second = self._adds_into_second(callee.node, call, flow, depth) if args == [SECOND] else None
            if second is not None:
                return second
            beside = self._adds_beside(callee.node, call, args, flow, depth) if stream_beside(args) else None
            if beside is not None:
                return beside
            if is_gate(callee.node) and isinstance(carried, Branch):
                # A module of bare parameters handed the stream beside a branch (experts given the
                # tokens and the router's scores) computes from the stream: it gates nothing.
                carried = next((arg for arg in args if arg is STREAM or arg is NORMED), carried)
            if mixes_depths(call, args):
                return Branch((callee.node,), None, resets_stream=True)
            applied = self._apply_called(callee.node, call, args, carried, depth)
            return self._unpacked(callee.node, call, args, flow, depth, applied)
        if _plain_function(callee) is not None or _closure(callee):
            # A helper imported inside `forward` (`from .base import call_layer`), or one written
            # there (`def _attn(h): ...`), run with the names it closes over.
            result = self._inline(callee.func, args, call, flow, depth, closure=callee.closure)
            return carried if result is None else result
        if bound_method(callee):
            # `self.ff_fn = self.ff_residual` in `__init__`, called as `self.ff_fn(x)`.
            result = self._inline(callee.func, [callee.bound] + args, call, flow, depth)
            return carried if result is None else result
        if isinstance(callee, MethodChoice):
            return self._one_method_of(callee, call, args, flow, depth, carried)
        if isinstance(callee, Lambda) and depth < MAX_FORWARD_DEPTH:
            return self._eval(callee.node.body, _lambda_env(callee, args), flow, depth + 1)
        return carried

    def _recorded_adds_within(
        self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int
    ) -> bool:
        """Record the adds a block called on the stream makes into it; False for no such block."""
        inner = self._adds_within(module, call, args, flow, depth)
        if inner is None:
            return False
        # (Called under a test left undecided, a part `__init__` may not have built.)
        optional = flow.undecided > 0 and _may_not_exist(module, flow.block or flow.node)
        for add in inner:
            add.optional = add.optional or optional
        flow.adds.extend(inner)
        return True

    def _one_method_of(
        self, choice: MethodChoice, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any
    ) -> Any:
        """`self._forward(x)` where `__init__` stored one of several methods under an undecided
        `if`: each is read as an arm of that `if`, its adds alternatives to the others'."""
        arms, results = flow.arms, []
        flow.undecided += 1
        for index, method in enumerate(choice.options):
            flow.arms = (*arms, (id(choice), index))
            result = self._inline(method.func, [method.bound] + args, call, flow, depth)
            results.append(carried if result is None else result)
        flow.undecided -= 1
        flow.arms = arms
        return functools.reduce(join, results)

    def _unpacked(
        self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int, applied: Any
    ) -> Any:
        """A module's output (`applied`), and what each name of a statement unpacking it holds."""
        outputs = self._outputs_as_called(module, call, args, flow, depth) if isinstance(applied, Branch) else None
        if outputs is not None:
            flow.unpacked[id(call)] = outputs
        return applied

    def _outputs_as_called(
        self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int
    ) -> Seq | None:
        """`text_out, image_out = self.joint_attn(norm_t(text), norm_i(image))`: a module that
        hands back one output per stream, each from a layer of its own (a joint attention's output
        projection per modality), unpacked: each name holds the output computed from its own
        input, read with the values the call hands it. None where the call is not unpacked so, or
        its outputs are not branches of separate layers (`out, gate = self.ada_norm(x, c)`)."""
        statement = flow.statement
        if not (
            isinstance(statement, cst.Assign)
            and statement.value is call
            and isinstance(statement.targets[0].target, (cst.Tuple, cst.List))
            and module.cls is not None
            and depth < MAX_FORWARD_DEPTH
        ):
            return None
        forward = self.interp.index.find_method(module.cls, "forward")
        if forward is None:
            return None
        # A tuple written out hands over one input per stream (`self.joint_attn((text, image))`).
        args = [
            flow.written.get(id(arg.value), value) if isinstance(arg.value, (cst.Tuple, cst.List)) else value
            for arg, value in zip(call.args, args)
        ]
        bound = bind_arguments(forward[1], [ModRef(module)] + args, call)
        given = {name: value for name, value in bound.items() if of_streams(value) or _streams_listed(value)}
        streams = [item for value in given.values() for item in (value.items if isinstance(value, Seq) else [value])]
        if sum(1 for value in streams if of_streams(value) and value is not CONDITIONED) < 2:
            return None  # one output per stream: a module handed one (an MoE's output and logits) keeps its first
        inner = self._read(module, depth + 1, handed=given)
        outputs = _items_handed_back(inner) if inner is not None and inner.returns else None
        if outputs is None or len(outputs.items) < 2:
            return None
        branches = [item for item in outputs.items if isinstance(item, Branch) and not item.squashed]
        layers = [id(layer) for branch in branches for layer in branch.last]
        return outputs if len(branches) == len(outputs.items) and len(set(layers)) == len(layers) else None

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

    def _inline(
        self,
        func: cst.FunctionDef,
        args: list[Any],
        call: cst.Call,
        flow: _Flow,
        depth: int,
        only_adding: bool = False,
        inlined: ModuleNode | None = None,
        closure: Env | None = None,
    ) -> Any:
        """Read a helper's body with the caller's values; its adds are the caller's, at the call.
        `only_adding`: None, and nothing recorded, where the body makes no add. `inlined`: the
        module whose method it is, when that is not the caller (its helpers run too). `closure`:
        the names a function written in `forward` closes over."""
        if depth >= MAX_FORWARD_DEPTH:
            return None
        env = Env({**(closure.names if closure is not None else {}), **bind_arguments(func, args, call)})
        inner = _Flow(
            flow.node,
            depth=depth + 1,
            undecided=flow.undecided,
            flags=flow.flags,
            arms=flow.arms,
            block=flow.block,
            recording=flow.recording,
            literals=tuple_literals(func),
            sliced=sliced_names(func),
            part=flow.part,
            inlined=inlined or flow.inlined,
        )
        self.walk_body(func.body.body, env, inner)
        if only_adding and not inner.adds:
            return None
        for add in inner.adds:
            add.inner = (id(add.statement), *add.inner)
            add.node, add.statement = call, flow.statement or call
            flow.adds.append(add)
        # `x, skip, kw = self.residual.prepare(x)`: a module's method hands each item back on its
        # own; a plain function's tuple (`bias, x = cat_with_bias(xs)`) stays one value.
        method = len(args) == len(call.args) + 1 and isinstance(args[0], ModRef)
        handed_back = _items_handed_back(inner) if inner.returns and method else None
        if handed_back is not None:
            flow.unpacked[id(call)] = handed_back
        callable_back = _callable_handed_back(inner.returns)
        if callable_back is not None:
            return callable_back
        return merge(inner.returns) if inner.returns else None

    def _apply_to_share(self, module: ModuleNode, share: Part, depth: int) -> Any:
        if self._passes_through(module) and not is_squashing(module):
            return share  # `self.merge_heads(v)` (a Rearrange), `self.drop(v)`: the same share, moved
        # `self.mlp_out(h)` on the MLP's share of a fused projection: content from the stream; a
        # norm or a gate computes a conditioned value from it.
        # A module of another package handed the values' share (an attention kernel: `self.attend(q,
        # k, v)`) computes content from it as well.
        kinds = ("linear", "module", "sequential", "unknown")
        # (A module of bare parameters that multiplies by a matrix of them is a layer: a custom linear.)
        gate = is_gate(module) and not self._multiplies_by_matrix(module, depth)
        layer = module.kind in kinds and not is_norm(module) and not gate
        return self._apply_module(module, share.whole if layer else CONDITIONED, depth)

    def _apply_module(self, module: ModuleNode, carried: Any, depth: int) -> Any:
        aside = self._apply_aside(module, carried, depth)
        if aside is not None:
            return aside
        if is_norm(module):
            if carried is STREAM:
                return NORMED
            if isinstance(carried, Branch):
                # `x + post_norm(f(norm(x)))`: the norm, not the writer's init, sets the branch scale.
                return replace(carried, renormalised=True)
            return carried
        if (carried is STREAM or isinstance(carried, Branch)) and self._normalises(module, depth):
            # An adaptive norm: it normalises what it is given, whatever layers it holds.
            return replace(carried, renormalised=True) if isinstance(carried, Branch) else NORMED
        if module.kind == "activation" and carried is STREAM:
            return ACTIVATED
        if isinstance(carried, Branch) and is_squashing(module):
            return replace(carried, squashed=True)  # `self.softmax(self.score(h))`: a gate, as `softmax(...)` makes
        if self._passes_through(module):
            return carried
        if module.kind == "sequential" and module.children:
            return reset_if_stream(carried, self._in_order(module, carried, depth))
        if isinstance(carried, Branch) and is_gate(module) and not self._multiplies_by_matrix(module, depth):
            # A learned gate of its own (LayerScale): deliberate where it may start small, which
            # its parameters' init decides once the plan is known (`gates.py`).
            return replace(carried, gate_params=carried.gate_params + tuple(module.params.values()))
        if carried is STREAM and module.kind == "module" and self.reads_only_metadata(module, depth):
            return UNKNOWN  # `pos_emb = self.rotary(x)`: made afresh from the stream's shape
        normed: bool | None = carried is NORMED or isinstance(carried, Branch) and carried.normed
        if carried is MAYBE_NORMED or isinstance(carried, Branch) and carried.normed is None:
            normed = None
        if carried is STREAM and module.kind == "module":
            _, normed = self.writers_of(module, depth)
        layers = module.with_alternatives()
        branch = Branch(layers, normed)
        # (Only where whichever layer an undecided `if` built ends in a norm: a dense MLP beside
        # an MoE that renormalises its output still writes into the stream.)
        if all(self._ends_in_norm(layer, depth) for layer in layers):
            return reset_if_stream(carried, replace(branch, renormalised=True))
        return branch

    def _apply_aside(self, module: ModuleNode, carried: Any, depth: int) -> Any:
        """A layer applied to something other than the stream, a normalised copy of it or a branch:
        a share of a layer's output, a second stream, a value computed elsewhere. None otherwise."""
        if isinstance(carried, Part):
            return self._apply_to_share(module, carried, depth)
        if carried is SECOND:
            return self._apply_to_second(module, depth)
        if carried is UNKNOWN or conditioned(carried):
            return CONDITIONED if module.kind in ("linear", "module", "sequential") else UNKNOWN
        return None

    def _apply_to_second(self, module: ModuleNode, depth: int) -> Any:
        """A layer applied to a second stream the block adds into: normalised (a norm, or a module
        or `nn.Sequential` that normalises its input first), the input of a branch that may be
        added back into it or into the first; anything else computed from it stays a value
        computed elsewhere, as far as the adds are concerned."""
        if is_norm(module) or self._normalises(module, depth):
            return NORMED
        if module.kind == "sequential" and module.children:
            return self._in_order(module, SECOND, depth)
        if module.kind == "module" and not self._passes_through(module) and self.writers_of(module, depth)[1] is True:
            return self._apply_module(module, NORMED, depth)
        return self._apply_module(module, CONDITIONED, depth)

    def _in_order(self, module: ModuleNode, carried: Any, depth: int) -> Any:
        """nn.Sequential runs its children in order: a LayerNorm first normalises the branch input."""
        for child in list(module.children.values())[:MAX_UNROLL]:
            carried = self._apply_module(child, carried, depth)
        return carried


def _streams_listed(value: Any) -> bool:
    """A tuple of values the reading follows, item by item (one input per stream)."""
    return isinstance(value, Seq) and value.repeat is None and any(of_streams(item) for item in value.items)


def _packing(packing: Packing, call: cst.Call, args: list[Any]) -> Any:
    """`pack([cls, x], "b * d")` and `unpack(packed, shapes, "b * d")` by the registry's entry:
    the positional arguments it names, as written."""
    positional = [value for arg, value in zip(call.args, args) if arg.keyword is None and not arg.star]
    if packing.kind == "packs":
        return packed(positional[packing.tensors]) if len(positional) > packing.tensors else UNKNOWN
    if len(positional) <= max(packing.tensors, packing.shapes):
        return UNKNOWN
    return unpacked(positional[packing.tensors], positional[packing.shapes])


def _may_not_exist(module: ModuleNode, block: ModuleNode) -> bool:
    """Whether `module`, inside `block`, was built only under a condition `__init__` left undecided."""
    node: ModuleNode | None = module
    while node is not None and node is not block:
        if node.optional:
            return True
        node = node.parent
    return False


def _callable_handed_back(returns: list[Any]) -> Any:
    """The module a helper hands back (`identity(attn)`), or the function it defines and hands
    back (`make_checkpointable(attn)`'s `inner`, closing over `attn`), where every `return`
    hands back that one callable: calling it later runs what it holds."""
    first = returns[0] if returns else None
    if isinstance(first, ModRef) and all(isinstance(v, ModRef) and v.node is first.node for v in returns):
        return first
    if _closure(first) and all(_closure(v) and v.func is first.func for v in returns):
        return first
    return None


def _closure(value: Any) -> TypeGuard[FuncRef]:
    """A function written inside the `forward` being read."""
    return isinstance(value, FuncRef) and value.owner is None and isinstance(value.closure, Env)


def _is_super(node: cst.BaseExpression) -> bool:
    """`super()` (with or without its two arguments)."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def _lambda_env(callee: Lambda, args: list[Any]) -> Env:
    """`self.mlpf = lambda x: m.c_proj(m.act(m.c_fc(x)))`: the modules it closes over, and its
    parameters bound to the arguments."""
    closure = callee.closure.names if isinstance(callee.closure, Env) else {}
    env = Env({k: v for k, v in closure.items() if isinstance(v, ModRef)})
    for param, value in zip(callee.node.params.params, args):
        env.names[param.name.value] = value
    return env


def _first_field(fields: list[str], call: cst.Call, args: list[Any]) -> Any:
    """`LayerOutput(hidden=out, weights=w)`, `Out(out, attn, (k, v))`: a record built to hand
    several values back (`records.py`). As with a tuple, its first field is the output the caller
    reads (`result[0]`, `result.hidden`); a first field left to its default computes nothing from
    the input."""
    for position, (arg, value) in enumerate(zip(call.args, args)):
        if arg.star:
            break
        if (arg.keyword.value if arg.keyword is not None else position) in (fields[0], 0):
            return value
    return UNKNOWN
