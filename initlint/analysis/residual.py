"""Stage 3: which layers write into the residual stream, by data flow through `forward`.

A block's `forward` is read with a small abstract domain: the stream (the block's
input and every `stream + branch` result), a normalised copy of it, and branches
(anything computed from it through at least one layer, remembering the layer
applied last). `stream + branch` is a residual add; its branch's last layer is
followed into that layer's own `forward` until a linear layer is reached: that
linear is the residual writer. Scalars multiplying a branch on the way are kept
(runtime scaling), as are learned gates (LayerScale) and whether the branch input
was normalised (pre-norm).

This module owns the reader's entry points (the adds of a block, the output head of a root) and
the search for the layer that writes each branch: the add itself and the writer it names. The
reader is one class assembled from mixins, one per topic: reading `forward`'s statements
(`forward_statements.py`), its expressions (`forward_expressions.py`) and its calls
(`forward_calls.py`); the abstract values it reads with are in `flow.py`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, Const, ModRef, Seq, truth
from initlint.analysis.call_arguments import bind_arguments, refuses_keywords
from initlint.analysis.forward_adders import ForwardAdders
from initlint.analysis.forward_calls import ForwardCalls, _may_not_exist
from initlint.analysis.forward_expressions import ForwardExpressions
from initlint.analysis.forward_statements import MAX_FORWARD_DEPTH, ForwardStatements, _Flow
from initlint.analysis.held_modules import held_path
from initlint.analysis.index import ClassInfo
from initlint.analysis.interp import Interpreter
from initlint.analysis.flow import (
    NORMED,
    STREAM,
    BlockLoops,
    Branch,
    Part,
    conditioned,
    hands_on_reset,
    is_pass_through,
    merge,
    resets_stream,
)
from initlint.analysis.knowledge.conventions import WRITER_NAMES
from initlint.analysis.knowledge.specs import ResidualBlock
from initlint.analysis.layers import layer_type
from initlint.analysis.model import ModuleNode, ResidualAdd, RuntimeScale, WriterRef
from initlint.analysis.scaled_input import returns_scaled_input
from initlint.analysis.statements import StatementWalker

#: A writer found: the layer (or the module owning a matrix parameter), how it was found, the
#: runtime scales after it, and which of its parameters is the written matrix.
_Found = tuple[ModuleNode, str, tuple[RuntimeScale, ...], str]


class ForwardReader(ForwardCalls, ForwardAdders, ForwardExpressions, ForwardStatements, StatementWalker[_Flow]):
    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
        self._writers: dict[int, tuple[Any, ...]] = {}
        self._scales_input: dict[tuple[int, frozenset[str]], bool] = {}
        self._normalising: dict[int, str | None] = {}
        self._roots: dict[int, _Flow | None] = {}
        self._metadata_only: dict[int, bool] = {}

    # ------------------------------------------------------------ entry points
    def residual_adds(self, block: ModuleNode) -> list[ResidualAdd]:
        library = layer_type(self.interp.knowledge, block.type_name) if block.kind == "block" else None
        if library is not None and library.residual is not None:
            return _library_adds(block, library.residual)
        flow = self._read(block, depth=0) if block.cls is not None else self._read_owner_loop(block)
        if block.cls is not None and (flow is None or not flow.adds):
            # A branch stacked in a list (`for norm, mlp in zip(self.norms, self.mlps): x = x +
            # mlp(norm(x))`): its own `forward` adds nothing, its owner's loop adds it.
            flow = self._read_owner_loop(block) or flow
        if (flow is None or not flow.adds) and block.kind in ("sequential", "wrapper") and self._library_forward(block):
            return self._sequential_adds(block)
        if flow is None:
            return []
        # What a block hands the next: what its `forward` returns; for a block whose adds are in
        # its owner's loop, what the loop body leaves in the names carrying the stream, where
        # none still holds the stream (the owner's `return self.norm(x)` after the loop is the
        # final norm, not the block's).
        handed_on = flow.returns if flow.block is None else [] if STREAM in flow.handed_on else flow.handed_on
        if hands_on_reset(handed_on):
            # (What it hands on first is the first stream; a second stream's adds are judged by
            # what becomes of that stream, as the block's statements read it.)
            for add in flow.adds:
                add.prenorm = False if not add.stream else add.prenorm
        return flow.adds

    def output_layers(self, root: ModuleNode) -> list[ModuleNode]:
        """The linear layers applied last to what a root's `forward` returns (first item of a
        tuple: `return logits, loss`): the output head, as the runtime names it."""
        flow = self._read_root(root)
        values = [
            value.items[0] if isinstance(value, Seq) and value.items else value
            for value in (flow.returns if flow else [])
        ]
        return [m for value in values if isinstance(value, Branch) for m in value.last if m.kind == "linear"]

    def stream_runs(self, root: ModuleNode) -> list[list[ModuleNode]]:
        """The block containers each stream of a root's `forward` runs through, in order."""
        flow = self._read_root(root)
        return flow.runs.runs if flow is not None else []

    def block_loops(self, owner: ModuleNode) -> BlockLoops | None:
        """What the loops of `owner`'s `forward` over the blocks of its lists hand from one block
        to the next; None where that `forward` cannot be read."""
        flow = self._read_root(owner)
        return flow.loops if flow is not None else None

    def _read_root(self, root: ModuleNode) -> _Flow | None:
        """A root's `forward`, read once for its output head and its streams (or the `forward` of
        a list's owner, for its loops over the list)."""
        if id(root) not in self._roots:
            self._roots[id(root)] = self._read(root, depth=0)
        return self._roots[id(root)]

    def _library_forward(self, block: ModuleNode) -> bool:
        """Whether calling `block` runs the library container's `forward`: built directly, or a
        subclass of `nn.Sequential` that only hands its layers to `super().__init__`."""
        return block.cls is None or self.interp.index.find_method(block.cls, "forward") is None

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
                add.writers = [replace(ref, path=f"{name}.{ref.path}" if ref.path else name) for ref in add.writers]
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
            result = self._writers_read(node, self._read(node, depth + 1), depth)
        self._writers[key] = result
        return result

    def reads_only_metadata(self, node: ModuleNode, depth: int) -> bool:
        """A module without parameters whose `forward`, handed the stream, returns only values it
        made afresh: a rotary or sinusoidal position embedding reads the stream's shape, device
        and dtype (`torch.linspace(-1, 1, steps=x.shape[-2])`), not its values."""
        key = id(node)
        if key not in self._metadata_only:
            self._metadata_only[key] = False  # recursion guard
            flow = self._read(node, depth + 1) if depth < MAX_FORWARD_DEPTH and not node.holds_parameters() else None
            self._metadata_only[key] = flow is not None and bool(flow.returns) and all(map(_made_afresh, flow.returns))
        return self._metadata_only[key]

    def _writers_read(self, node: ModuleNode, flow: _Flow | None, depth: int) -> tuple[list[_Found], bool | None]:
        """The writers of a module and whether it normalises its input first, from its
        `forward` as read in `flow`."""
        found: list[Any] = []
        normed: bool | None = False
        if flow is not None:
            branches = [value for value in flow.returns if isinstance(value, Branch)]
            # Paths that end in different layers (a fused-kernel path beside the eager one)
            # leave the writer undecided: keep only what every path agrees on.
            common = set.intersection(*(set(map(id, b.last + b.matrices)) for b in branches)) if branches else set()
            out = merge(branches)
            if flow.several and flow.returns and all(value is NORMED for value in flow.returns):
                # `return self.norm(x) * (1 + scale) + shift, gate`: its input normalised, with
                # the gates beside it that it computed.
                normed = True
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
        return found, normed

    def _apply_called(self, module: ModuleNode, call: cst.Call, args: list[Any], carried: Any, depth: int) -> Any:
        """A module called on what `carried` holds; one handed the stream by a later input too
        (`attn(media, latents)` adding into `latents`) is read with the stream in each."""
        applied = self._apply_module(module, carried, depth)
        named = module.cls is not None and isinstance(applied, Branch) and any(arg.keyword for arg in call.args)
        forward = self.interp.index.find_method(module.cls, "forward") if named and module.cls is not None else None
        if forward is not None and refuses_keywords(forward[1], call):
            # `attn(x, cache=c)` where the module's `forward` takes no `cache`: the call raises in the
            # model as built, so none of its layers writes what the call hands back (a model that
            # runs the call builds another module there, whose writer is not this one).
            return Branch((), applied.normed)
        if carried is STREAM and STREAM in args[1:] and isinstance(applied, Branch):
            return replace(applied, normed=self._normed_as_called(module, call, args, depth, applied.normed))
        return applied

    def _normed_as_called(
        self, module: ModuleNode, call: cst.Call, args: list[Any], depth: int, normed: bool | None
    ) -> bool | None:
        """Whether a module's output is computed from its input normalised, read with the stream
        in every input the call hands it (the module normalises the media and the latents
        apart); its writers are those of that reading, where it finds any. `normed`, as read
        from its first input, where it finds no branch."""
        forward = self.interp.index.find_method(module.cls, "forward") if module.cls is not None else None
        if forward is None or depth >= MAX_FORWARD_DEPTH:
            return normed
        self.writers_of(module, depth)  # its own reading first (and the recursion guard)
        bound = bind_arguments(forward[1], [ModRef(module)] + args, call)
        flow = self._read(module, depth + 1, handed={name: STREAM for name, value in bound.items() if value is STREAM})
        if flow is None or not any(isinstance(value, Branch) for value in flow.returns):
            return normed
        found, called = self._writers_read(module, flow, depth)
        if found:
            self._writers[id(module)] = (found, called)
        return called

    def _passes_through(self, module: ModuleNode) -> bool:
        """A layer that hands on what it is given (dropout, an activation), or a module without
        parameters, whose sub-layers (if any) only hand on what they are given, and whose
        `forward` returns its input, at most scaled by values independent of it (stochastic depth
        written out in the file, a structured dropout wrapping `nn.Dropout`)."""
        if is_pass_through(module):
            return True
        cls = module.cls
        if module.kind != "module" or cls is None or module.params:
            return False
        if not all(is_pass_through(child) and not child.params for child in module.children.values()):
            return False
        key = (id(cls.node), frozenset(module.children))
        if key not in self._scales_input:
            found = self.interp.index.find_method(cls, "forward")
            handing_on = frozenset(module.children)
            scales = found is not None and returns_scaled_input(found[1], self.interp.index, cls, handing_on)
            self._scales_input[key] = scales
        return self._scales_input[key]

    def _normalises(self, module: ModuleNode, depth: int) -> bool:
        """A module whose `forward` hands back its input normalised, at most modulated by values
        computed from something else (adaLN without a gate: `norm(x) * (1 + scale(c)) + shift(c)`),
        on every path, and adds nothing into it. One that hands a gate back beside it (adaLN-Zero)
        stays a layer whose later outputs gate the branch."""
        return self._output_norm(module, depth) == "input"

    def _ends_in_norm(self, module: ModuleNode, depth: int) -> bool:
        """A module whose `forward` puts its output through a norm last on every path (a conv
        then a BatchNorm), adding nothing into it: its output's scale is the norm's, whatever
        the layers before it hold."""
        return self._output_norm(module, depth) is not None

    def _output_norm(self, module: ModuleNode, depth: int) -> str | None:
        """What a module's `forward` hands back normalised on every path: its "input", or the
        output of its "layers"; None where it does not (read once per module)."""
        if module.kind != "module" or module.cls is None or depth >= MAX_FORWARD_DEPTH:
            return None
        if id(module) not in self._normalising:
            self._normalising[id(module)] = None  # recursion guard
            flow = self._read(module, depth + 1)
            returns = flow.returns if flow is not None and not flow.adds and not flow.several else []
            if returns and all(value is NORMED for value in returns):
                self._normalising[id(module)] = "input"
            elif returns and all(
                value is NORMED or isinstance(value, Branch) and value.renormalised for value in returns
            ):
                self._normalising[id(module)] = "layers"
        return self._normalising[id(module)]

    def _multiplies_by_matrix(self, module: ModuleNode, depth: int) -> bool:
        """A module with parameters and no sub-layers that uses them as weight matrices (3-D
        experts, or its own `weight` as a linear layer does: `torch.addmm(self.bias, x, self.weight)`)
        is a layer, not a LayerScale-like gate."""
        return any(param != "weight" or writer is module for writer, _, _, param in self.writers_of(module, depth)[0])

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

    # ------------------------------------------------------------------- adds
    def _add(self, left: Any, right: Any, node: cst.CSTNode, flow: _Flow) -> Any:
        for side, (stream, branch) in enumerate(((left, right), (right, left))):
            if stream is STREAM and isinstance(branch, Branch) and flow.node.cls is not None and flow.recording:
                block = flow.block or flow.node
                add = ResidualAdd(
                    f"{flow.node.cls.name}.forward",
                    node,
                    flow.statement or node,
                    prenorm=branch.normed,
                    gated=branch.gated or branch.renormalised,
                    gate_layers=branch.gate_layers,
                    gate_params=branch.gate_params,
                    share=_share(node, side, flow.shares),
                )
                add.writers = self._writer_refs(block, branch)
                add.optional = flow.undecided > 0 and any(_may_not_exist(m, block) for m in branch.last)
                add.flags = frozenset(flow.flags)
                add.arms, add.part = flow.arms, flow.part
                add.stream = _named_stream(flow)
                flow.adds.append(add)
                return STREAM
        if STREAM in (left, right) and any(map(conditioned, (left, right))):
            flow.offset = True
        modulated = any(conditioned(value) or isinstance(value, Part) for value in (left, right))
        if flow.recording and STREAM not in (left, right) and not modulated and any(map(resets_stream, (left, right))):
            # `x = conv_bn(x); x = x + ff(x)`: the stream was renormalised after the adds made so
            # far and goes on from there, as after a post-norm `norm(x + f(x))`: they do not
            # sum over depth. A conditioned shift (`norm(x) * (1 + scale) + shift`) only
            # modulates a branch input.
            for add in flow.adds:
                add.prenorm = False
        return merge([left, right])

    def _writer_refs(self, block: ModuleNode, branch: Branch) -> list[WriterRef]:
        refs: list[WriterRef] = []
        found = [w for last in branch.last for w in self.writers_of(last)[0]]
        found.extend((p.owner, "data flow", (), p.name) for p in branch.matrices)
        for writer, how, scales, param in found:
            relative = held_path(block, writer) or (writer.path[len(block.path) + 1 :] if block.path else writer.path)
            # A matrix parameter is created by its own module's `__init__`; a layer by its parent's.
            owner = (writer.cls if param != "weight" else _creator(writer)) or block.cls
            if owner is None:
                continue
            attr = writer.name if param == "weight" else param
            scaled = list(scales) + list(branch.scales)
            refs.append(WriterRef(relative, owner.name, attr, how, scaled, param, layer=writer))
        return refs


def _named_stream(flow: _Flow) -> str:
    """The stream an add goes into, where a block takes each by name (`image_tokens = ...`):
    each sums its own adds over depth."""
    statement = flow.statement
    if not flow.named or not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return ""
    target = statement.targets[0].target
    return target.value if isinstance(target, cst.Name) and target.value in flow.named else ""


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


def _creator(node: ModuleNode) -> ClassInfo | None:
    """The class whose `__init__` created `node`: its nearest ancestor with a class
    (`self.net = nn.Sequential(...)` creates `net.3` in FeedForward)."""
    parent = node.parent
    while parent is not None and parent.cls is None:
        parent = parent.parent
    return parent.cls if parent is not None else None


def _share(node: cst.CSTNode, side: int, shares: set[str]) -> str:
    """The part of a split stream an add writes into: the name of its stream operand, where
    that name holds a part (`y1 = x1 + f(x2)` adds into `x1`)."""
    if isinstance(node, cst.BinaryOperation):
        operand: cst.CSTNode = node.left if side == 0 else node.right
    elif isinstance(node, cst.AugAssign):
        operand = node.target
    else:
        return ""
    return operand.value if isinstance(operand, cst.Name) and operand.value in shares else ""


def _made_afresh(value: Any) -> bool:
    """A value the reading holds no provenance for (a fresh tensor, a number), or a tuple of them."""
    if isinstance(value, Seq):
        return all(map(_made_afresh, value.items))
    return value is UNKNOWN or isinstance(value, Const)
