"""Reading the adds a called module makes into the stream (`residual.ForwardReader`).

A mixin of the forward reader: a library layer whose call makes or hands out the residual add
(a fused add-and-norm, a stream connection and the adder it hands out), and a module of the
file whose own `forward` adds the stream back (a residual wrapper, or one handed the stream
beside its input): its adds are the calling block's, at the call.
"""

from __future__ import annotations

import functools

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Const, Env, Lambda, ModRef, Seq, truth
from initlint.analysis.call_arguments import bind_arguments, call_argument
from initlint.analysis.flow import SECOND, STREAM, Adder, join
from initlint.analysis.forward_statements import MAX_FORWARD_DEPTH, _Flow
from initlint.analysis.layers import layer_type
from initlint.analysis.model import ModuleNode, ResidualAdd, WriterRef

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.interp import Interpreter


class ForwardAdders:
    """Needs the reader's calls and statements (`residual.ForwardReader`)."""

    interp: Interpreter

    if TYPE_CHECKING:  # declared only: a stub here would hide the reader's own method

        def _value(self, node: cst.BaseExpression, env: Env) -> Any: ...

        def _read(
            self, node: ModuleNode, depth: int, block: ModuleNode | None = None, handed: Mapping[str, Any] | None = None
        ) -> _Flow | None: ...

        def _add(self, left: Any, right: Any, node: cst.CSTNode, flow: _Flow) -> Any: ...

        def _apply_module(self, module: ModuleNode, carried: Any, depth: int) -> Any: ...

        def _library_forward(self, block: ModuleNode) -> bool: ...

        def _passes_through(self, module: ModuleNode) -> bool: ...

        def _call_value(
            self, callee: Any, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any
        ) -> Any: ...

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
        ) -> Any: ...

    def _adding_layer(
        self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any
    ) -> Any:
        """A library layer whose call makes (or hands out) a residual add: a fused add-and-norm,
        a stream connection. None for any other module."""
        fused = self._fused_add_norm(module, call, args, flow, depth)
        return fused if fused is not None else self._connection(module, call, args, flow, depth, carried)

    def _fused_add_norm(self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int) -> Any:
        """A fused add-and-norm layer handed the stream (`norm(branch, residual, prenorm=True)`):
        the residual add happens in the call; the caller gets the normalised sum, and with the
        switch on the pair of it and the sum, which goes on as the stream. None for any other call."""
        spec = layer_type(self.interp.knowledge, module.type_name)
        fused = spec.adds_residual if spec is not None else None
        given = call_argument(call, args, fused.residual) if fused is not None and args else None
        if fused is None or given is None:
            return None
        # `residual=None` (the first layer of a stack that carries the pair): only `x` is normalised.
        none = isinstance(given[1], Const) and given[1].value is None
        total = args[0] if none else self._add(args[0], given[1], call, flow)
        normed = self._apply_module(module, total, depth)
        switch = call_argument(call, args, fused.returns_sum)
        returns_sum = (
            truth(self._value(switch[0], Env({"self": ModRef(flow.node)}))) if switch else fused.returns_sum.default
        )
        if returns_sum is None:
            return UNKNOWN
        return Seq([normed, total]) if returns_sum else normed

    def _connection(
        self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int, carried: Any
    ) -> Any:
        """A stream connection (hyper-connections) handed the stream: it hands back the branch
        input (the streams mixed, not normalised) and an adder (`branch_input, add = hc(x)`);
        built around its branch, it runs the branch on that input with the call's other
        arguments and adds what the branch returns (`x = hc(x)`). None for any other module."""
        spec = layer_type(self.interp.knowledge, module.type_name)
        connection = spec.connection if spec is not None else None
        if connection is None or not args:
            return None
        adder = Adder(args[0], truth(module.attrs.get(connection.adds, UNKNOWN)))
        branch = module.children.get(connection.branch)
        if branch is None:
            return Seq([args[0], adder])
        return self._added(adder, self._call_value(ModRef(branch), call, args, flow, depth, carried), call, flow)

    def _added(self, adder: Adder, output: Any, call: cst.Call, flow: _Flow) -> Any:
        """An adder called on a branch output: the add into the stream its connection was handed.
        Switched off, the output comes back alone; where the switch is undecided no add is
        counted, and the stream goes on."""
        if adder.adds is False:
            return output
        if adder.adds is None:
            return join(adder.stream, output)
        return self._add(adder.stream, output, call, flow)

    def _adds_within(
        self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int
    ) -> list[ResidualAdd] | None:
        """A module handed the stream whose own `forward` adds its input back and returns only
        the sum (a residual wrapper: `return self.fn(self.norm(x)) + x`, or `(out + x, *rest)` for
        a tuple): its adds belong to the block that calls it, and what it hands on is the stream.
        A branch the caller hands it (`self.sublayer(x, self.mlp)`, `lambda h: self.attn(h, h, h)`)
        runs where the wrapper calls it. One that only adds a value computed from something else
        (a position bias: `x + self.table(coords)`) hands the stream on with no add of its own.
        None for any other module."""
        if module.kind == "sequential" and module.children and self._library_forward(module):
            return self._adds_in_sequence(module, call, args, flow, depth)
        if module.cls is None or depth >= MAX_FORWARD_DEPTH:
            return None
        forward = self.interp.index.find_method(module.cls, "forward")
        bound = bind_arguments(forward[1], [ModRef(module)] + args, call) if forward is not None else {}
        handed = {name: value for name, value in bound.items() if isinstance(value, (ModRef, Lambda))}
        inner = self._read(module, depth + 1, handed=handed)
        if inner is None or not (inner.adds or inner.offset and inner.returns):
            return None
        if any(value is not STREAM for value in inner.returns):
            return None
        handed_back = _items_handed_back(inner)
        if handed_back is not None:
            flow.unpacked[id(call)] = handed_back
        block = flow.block or flow.node
        # Each `return` hands back one sum: arms that add the same writers (a plain and a tuple
        # output) are one add per call.
        adds: dict[tuple[str, ...], ResidualAdd] = {}
        for add in inner.adds:
            add.writers = [replace(ref, path=_relative(ref, module, block)) for ref in add.writers]
            # (A wrapper's own wrappers keep their place below it: two `Residual`s of one
            # `nn.Sequential` make two adds with one statement.)
            add.site = ".".join(filter(None, (_relative_path(module, block), add.site)))
            adds.setdefault(tuple(ref.path for ref in add.writers), add)
        return list(adds.values())

    def _adds_into_second(self, module: ModuleNode, call: cst.Call, flow: _Flow, depth: int) -> Any:
        """`pair = self.update(pair)` on a second stream the block hands back, where the module's
        own `forward` adds its input back (residual wrappers): its adds are adds into that stream,
        which goes on as the second stream. None for any other call."""
        written = call.args[0].value if len(call.args) == 1 else None
        if not isinstance(written, cst.Name) or written.value not in flow.carried or not flow.recording:
            return None
        inner = self._adds_within(module, call, [STREAM], flow, depth)
        if not inner:
            return None
        for add in inner:
            add.stream = written.value
        flow.adds.extend(inner)
        flow.carried_adds.setdefault(written.value, []).extend(inner)
        flow.added_into = written.value
        return SECOND

    def _adds_in_sequence(
        self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int
    ) -> list[ResidualAdd] | None:
        """`self.main(e)` where `main = nn.Sequential(Residual(f), Residual(g))`: the library's
        `forward` hands the stream to each child in turn. Where every child that computes is a
        residual wrapper (its adds are its caller's, the stream handed on), the adds are the
        calling block's, in order. None where a child does anything else."""
        adds: list[ResidualAdd] = []
        for child in module.children.values():
            if self._passes_through(child):
                continue
            inner = self._adds_within(child, call, args[:1], flow, depth)
            if not inner:
                return None
            adds.extend(inner)
        return adds or None

    def _adds_beside(self, module: ModuleNode, call: cst.Call, args: list[Any], flow: _Flow, depth: int) -> Any:
        """A module handed the stream beside its input (ViT's `self.output(hidden, x)`), or the
        stream and a branch computed before (`self.resid(x, h)`), whose own `forward` adds it back
        (`dense(hidden) + residual`, `x + self.branch(y)`): read with the caller's values, its own
        helpers included, the add is the caller's, at the call. None where its `forward` adds
        nothing so."""
        forward = self.interp.index.find_method(module.cls, "forward") if module.cls is not None else None
        if forward is None or not flow.recording:
            return None
        return self._inline(forward[1], [ModRef(module)] + args, call, flow, depth, only_adding=True, inlined=module)


def _items_handed_back(flow: _Flow) -> Seq | None:
    """What each item of the tuple a `forward` hands back holds (`return residual,
    self.norm_2(x)`: the stream and its norm), where every `return` writes out one as long."""
    items = flow.returned_items
    if len(items) != len(flow.returns) or not items[0] or any(len(other) != len(items[0]) for other in items):
        return None
    return Seq([functools.reduce(join, [returned[i] for returned in items]) for i in range(len(items[0]))])


def _relative_path(module: ModuleNode, block: ModuleNode) -> str:
    return module.path[len(block.path) + 1 :] if block.path else module.path


def _relative(ref: WriterRef, wrapper: ModuleNode, block: ModuleNode) -> str:
    """A wrapper's writer as the calling block names it: one of the wrapper's own layers under
    the wrapper's name, one the block handed it (`self.mlp`) under its own."""
    layer = ref.layer
    if layer is not None and not layer.is_under(wrapper) and layer.is_under(block):
        return _relative_path(layer, block)
    prefix = _relative_path(wrapper, block)
    return f"{prefix}.{ref.path}" if ref.path else prefix  # (a matrix of the wrapper itself)
