"""The abstract values of the forward data flow (`residual.py`), how they combine, and which
layers normalise, pass through or gate what reaches them; and the records of the block lists
each value runs through (`StreamRuns`) and of what the loops over a list's blocks hand from one
block to the next (`BlockLoops`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import libcst as cst

from initlint.analysis.abstract import UNKNOWN, ParamRef
from initlint.analysis.knowledge.conventions import NORM_HINTS, PASS_THROUGH_HINTS, ROOTS, SPREAD_STATISTICS, SQUASHING
from initlint.analysis.model import ModuleNode, Param, RuntimeScale
from initlint.analysis.values import Monomial


class Stream:
    """The residual stream itself."""


class Normed:
    """A normalised copy of the stream."""


STREAM, NORMED = Stream(), Normed()
#: Normalised only if a condition we cannot decide holds (`if self.normalize_before:`).
MAYBE_NORMED = Normed()


class Activated:
    """The stream through a nonlinearity (`relu(x + f(x))`): a post-activation residual network's
    block output, not a residual stream handed on unchanged."""


ACTIVATED = Activated()


class Conditioned:
    """Computed by a layer from something other than the stream (adaLN's `shift, scale, gate`)."""


CONDITIONED = Conditioned()
#: A second stream a block adds into and hands back (a pair representation, the image tokens
#: of a joint block): computed elsewhere as far as the first stream is concerned, but what the
#: block computes from it normalised is a branch input of its own (`image + out(norm(image))`).
SECOND = Conditioned()


def conditioned(value: object) -> bool:
    """Computed from something other than the stream this reading follows."""
    return value is CONDITIONED or value is SECOND


@dataclass(frozen=True)
class Spread:
    """A measure of the stream's scale computed from it (`x.std(-1)`, `x.var(-1) + eps`,
    `torch.sqrt(var)`), or with `inverse` its reciprocal (`torch.rsqrt(var + eps)`): the stream
    divided by the one, or multiplied by the other, is standardised (a norm written out)."""

    inverse: bool = False


SPREAD, INVERSE_SPREAD = Spread(), Spread(inverse=True)


@dataclass(frozen=True)
class Branch:
    last: tuple[ModuleNode, ...]  # the layer(s) applied last
    normed: bool | None  # None: only under a condition we cannot decide
    scales: tuple[RuntimeScale, ...] = ()
    #: A norm applied after the writer resets the branch's scale whatever its init.
    renormalised: bool = False
    #: The whole stream went through layers ending in a norm (`x = conv_bn(x)`): handed on as
    #: the stream, it starts afresh from there, as after a post-norm block's `norm(x + f(x))`.
    resets_stream: bool = False
    gated: bool = False
    #: Passed through a sigmoid/softmax/tanh: a gate rather than content.
    squashed: bool = False
    #: Parameters of a module used as the weight matrix (3-D MoE experts: `h @ self.down_proj[e]`).
    matrices: tuple[Param, ...] = ()
    #: The modules whose later outputs multiply the branch (`h, gate = self.ada_norm(x, c)`): a
    #: gate as small as their layers start, which the init plan decides (`stacks.py`).
    gate_layers: tuple[ModuleNode, ...] = ()
    #: Learned gates multiplying the branch (ReZero's alpha, a LayerScale gain): deliberate only
    #: where they may start small, which their init decides (`gates.py`).
    gate_params: tuple[Param, ...] = ()


@dataclass(frozen=True)
class Part:
    """A later part of a layer's output unpacked in `forward` (`q, k, v, h = self.fused(x).split(...)`,
    `out, gate = self.ada_norm(x, emb)`): multiplying a branch, it gates it as a conditioned value
    does; a layer run on it computes content from what the whole was computed from (the MLP's
    share of a fused projection)."""

    whole: Branch


@dataclass(frozen=True)
class Adder:
    """What a stream connection hands back beside the branch input (hyper-connections'
    `add_residual`): called on a branch output, it adds that branch into `stream`, the value the
    connection was handed, as `stream + branch` does. `adds`: the connection's add switch (None:
    undecided; False: it hands the branch output back alone)."""

    stream: Any
    adds: bool | None = True


def resets_stream(value: Any) -> bool:
    """The stream normalised as a whole (`norm(x)`, `conv_bn(x)`), no longer the sum of the adds
    before."""
    return value is NORMED or isinstance(value, Branch) and value.resets_stream


def hands_on_reset(values: list[Any]) -> bool:
    """What a block hands the next (its `forward`'s returns, or what a loop over the blocks leaves
    in the names carrying the stream) renormalised (Conformer's final norm, `x = self.norm(x)`
    last in the loop's body: post-norm in effect) or through a nonlinearity (Inception-ResNet:
    post-activation): the adds before do not sum over depth."""
    return any(value in (MAYBE_NORMED, ACTIVATED) or resets_stream(value) for value in values)


def is_norm(node: ModuleNode) -> bool:
    if node.kind == "norm":
        return True
    names = (node.name.lower(), node.type_name.rsplit(".", 1)[-1].lower())
    return (
        node.kind in ("unknown", "module")
        and any(hint in n for n in names for hint in NORM_HINTS)
        and not node.children
    )


def is_pass_through(node: ModuleNode) -> bool:
    if node.kind in ("dropout", "activation"):
        return True
    name = node.name.lower()
    return node.kind == "unknown" and any(hint in name for hint in PASS_THROUGH_HINTS)


def is_squashing(node: ModuleNode) -> bool:
    """`nn.Softmax`, `nn.Sigmoid`, `nn.Tanh`: the layer form of the functions that make a gate."""
    return node.kind == "activation" and node.type_name.rsplit(".", 1)[-1].lower() in SQUASHING


def is_gate(node: ModuleNode) -> bool:
    """LayerScale-like: a module with its own parameters and no sub-layers."""
    return node.kind == "module" and not node.children and bool(node.params)


def merge(values: list[Any]) -> object:
    branches = [v for v in values if isinstance(v, Branch)]
    if branches:
        last = tuple(dict.fromkeys(m for b in branches for m in b.last))
        normed = None if any(b.normed is None for b in branches) else all(b.normed for b in branches)
        return Branch(
            last,
            normed,
            tuple(s for b in branches for s in b.scales),
            renormalised=any(b.renormalised for b in branches),
            resets_stream=any(b.resets_stream for b in branches),
            gated=any(b.gated for b in branches),
            # (`torch.topk(probs, k)`: still probabilities, where each value merged is.)
            squashed=all(b.squashed for b in branches),
            matrices=tuple(dict.fromkeys(p for b in branches for p in b.matrices)),
            gate_layers=tuple(dict.fromkeys(m for b in branches for m in b.gate_layers)),
            gate_params=tuple(dict.fromkeys(p for b in branches for p in b.gate_params)),
        )
    for marker in (STREAM, NORMED, MAYBE_NORMED):
        if marker in values:
            return marker
    part = next((v for v in values if isinstance(v, Part)), None)
    if part is not None and SECOND not in values:
        # `attention(q, k, v, mask)`: a share of a branch mixed with a value handed in (the mask)
        # still holds the branch's content.
        return part
    for elsewhere in (CONDITIONED, SECOND):
        if elsewhere in values:
            return elsewhere
    return UNKNOWN if part is None else part


def join(a: object, b: object) -> object:
    """The value of a name after an undecided `if`: normalised on one path only is MAYBE_NORMED."""
    if a is b:
        return a
    normed = (NORMED, MAYBE_NORMED)
    if (a in normed or a is STREAM) and (b in normed or b is STREAM):
        return MAYBE_NORMED
    if STREAM in (a, b) and (isinstance(a, Branch) or isinstance(b, Branch)):
        return STREAM  # `if residual is not None: x = residual + x`: the stream goes on where it was added
    if isinstance(a, Branch) and isinstance(b, Branch) and _apart(a, b) and _scaled_aside(a) != _scaled_aside(b):
        # Arms that end in different layers, one arm's output gated or renormalised after them,
        # the other's not: the other arm's layers alone decide the branch's scale on their path,
        # and their add is not gated by what only the first arm computes (`if use_mamba: out =
        # self.mamba(h) else: out = self.o_proj(attn)`, o_proj a module of bare parameters read
        # as a gate). One layer gated in one arm only (LayerScale on a flag) stays gated.
        return b if _scaled_aside(a) else a
    return merge([a, b])


def _apart(a: Branch, b: Branch) -> bool:
    """Two branches that end in different layers."""
    return not {id(m) for m in a.last} & {id(m) for m in b.last}


def _scaled_aside(branch: Branch) -> bool:
    """A branch whose scale something after its layers may set: a gate or a norm."""
    return branch.gated or branch.renormalised or bool(branch.gate_layers or branch.gate_params)


@dataclass
class StreamRuns:
    """The block containers each name carries its value through, in the order the reading
    meets them (`for blk in self.encoder: x = blk(x)` then `for blk in self.decoder: x = blk(x)`).

    A name rebound from a value computed from itself keeps its run and adds the containers whose
    blocks that statement called (`x = blk(x, mask)`, `x = self.mid_norm(x)`); one rebound from
    anything else starts afresh (`x = self.mid_norm(memory)`): another stream.
    """

    #: Each run: the containers, in the order met (a container met again repeats).
    runs: list[list[ModuleNode]] = field(default_factory=list)
    #: The run (its position in `runs`) each name's value is on.
    carried: dict[str, int] = field(default_factory=dict)
    #: The names read, and the containers whose blocks were called, in the statement being read.
    read: set[str] = field(default_factory=set)
    passed: list[ModuleNode] = field(default_factory=list)

    def start_statement(self) -> None:
        self.read.clear()
        self.passed.clear()

    def block_called(self, block: ModuleNode) -> None:
        """A block of a container applied: the value handed in runs through that container. A
        module held as an attribute of its own (`self.block_1`, `self.norm`) is met itself: copies
        of one block chained by hand are a stack too (`streams.unrolled_copies`)."""
        if block.parent is not None and block.parent.kind in ("container", "sequential"):
            self.passed.append(block.parent)
        elif block.parent is not None:
            self.passed.append(block)

    def bound(self, names: set[str]) -> None:
        """The names the statement just read binds."""
        for name in names:
            if name not in self.read:
                self.carried.pop(name, None)
            elif self.passed:
                if name not in self.carried:
                    self.carried[name] = len(self.runs)
                    self.runs.append([])
                self.runs[self.carried[name]].extend(_in_order(self.passed))


#: Stands in a run for copies of one block one statement applies (`self.a(x) + self.b(x)`, or
#: `self.b(self.a(x))`): side by side or one after the other, the reading cannot tell.
UNORDERED = ModuleNode("", "unordered", "")


def _in_order(passed: list[ModuleNode]) -> list[ModuleNode]:
    """The modules one statement applied, as a run keeps them: copies of one class (held as
    attributes of their own) in one statement are no chain (`streams.unrolled_copies`)."""
    classes = [id(node.cls) for node in passed if node.kind == "module" and node.cls is not None]
    return [
        UNORDERED if node.kind == "module" and node.cls is not None and classes.count(id(node.cls)) > 1 else node
        for node in passed
    ]


def stored_key(owner: str, attribute: str) -> str:
    """The name under which a `forward` keeps what it stored in an attribute (`self.pos_emb =
    ...`) for the rest of the read: dotted, so no plain name meets it."""
    return f"{owner}.{attribute}"


def computed_by_key(name: str) -> str:
    """The name under which a `forward` keeps the layer that computed a conditioned value bound
    to `name` (`gate` in `shift, scale, gate = self.modulation(c).chunk(3)`): no plain name meets it."""
    return f"<computed by>{name}"


@dataclass
class _Pass:
    """One pass of a loop's body over the blocks of a container, the blocks bound to `block`."""

    block: str
    #: Each name bound so far in the pass: whether a block's output went into its value, and the
    #: names read as the pass found them (from before the loop or an earlier pass) it came from.
    bound: dict[str, tuple[bool, frozenset[str]]] = field(default_factory=dict)
    #: The names as found at the start of the pass that the block's calls were handed.
    taken: set[str] = field(default_factory=set)
    calls: int = 0
    called_now: bool = False
    #: The block named without being called (`checkpoint(blk, x)`, `attn, ff = blk`).
    otherwise: bool = False

    def renormalised(self, names: dict[str, Any]) -> bool:
        """The names the blocks were handed, as the pass leaves them (`names`), hand the next
        block the stream renormalised (`x = blk(x); x = self.norms[i](x)`), none still the stream."""
        handed = [names[name] for name in self.taken if name in names]
        return self.calls > 0 and STREAM not in handed and hands_on_reset(handed)

    def origins(self, names: set[str]) -> set[str]:
        return {origin for name in names for origin in (self.bound[name][1] if name in self.bound else (name,))}

    def fresh(self) -> bool:
        """The blocks took only values built afresh: none an earlier pass's blocks returned."""
        returned = {name for name, (from_block, _) in self.bound.items() if from_block}
        return self.calls > 0 and not self.otherwise and not self.taken & returned


@dataclass
class Loop:
    """A `for` being read: the containers whose blocks it binds to a name, or the count of a
    `for _ in range(n)` and whether its body reads the counter (asked only where it matters)."""

    statement: object
    body: tuple[object, ...]
    walked: list[tuple[str, ModuleNode]]
    count: Monomial | None = None
    reads_counter: Callable[[], bool] = bool
    #: The statements directly in the body (by id): a block called deeper may not run each pass.
    top: frozenset[int] = frozenset()
    passes: list[_Pass] = field(default_factory=list)
    #: Per container walked: whether every pass so far handed its blocks fresh values.
    fresh: dict[int, bool] = field(default_factory=dict)
    #: A `range(n)` loop: per container, the freshness of each loop over its blocks written
    #: directly in the body.
    inner: dict[int, list[bool]] = field(default_factory=dict)
    #: What each name held when the pass being read began, and the names the pass bound since.
    found: dict[str, Any] = field(default_factory=dict)
    rebound: set[str] = field(default_factory=set)


@dataclass
class LoopFacts:
    """What the loops of one `forward` over a container's blocks hand from block to block."""

    loops: int = 0
    #: Every pass handed the blocks only values built afresh in it (one block per branch).
    fresh: bool = True
    #: How often the container itself was read (its loops' headers included).
    read: int = 0
    #: The count of a `for _ in range(n)` that runs the whole list again and again.
    runs: Monomial | None = None
    #: Every pass handed the next block the stream renormalised (`BlockLoops.renormalised`);
    #: None before the first pass.
    renormalised: bool | None = None


@dataclass
class BlockLoops:
    """The loops of a `forward` over the blocks of its containers, recorded as they are read.

    A loop whose blocks each take a value built afresh in its pass (one fusion block per branch
    of a multi-scale model) runs them side by side: their adds do not pile up. A loop handing
    each block what an earlier one returned chains them; inside `for _ in range(n)` whose count
    the body does not read, the whole list runs n times over (Perceiver's shared self-attends).
    """

    facts: dict[int, LoopFacts] = field(default_factory=dict)
    open: list[Loop] = field(default_factory=list)
    #: The names the statement being read changes in place (`outs.append(y)`).
    changed: set[str] = field(default_factory=set)

    def container_read(self, container: ModuleNode) -> None:
        self.facts.setdefault(id(container), LoopFacts()).read += 1

    def enter(self, loop: Loop) -> None:
        for _, container in loop.walked:
            self.facts.setdefault(id(container), LoopFacts()).loops += 1
        self.open.append(loop)

    def start_pass(self, targets: set[str], names: dict[str, Any]) -> None:
        loop = self.open[-1]
        loop.passes = [_Pass(block, {name: (False, frozenset()) for name in targets}) for block, _ in loop.walked]
        loop.found, loop.rebound = dict(names), set(targets)

    def carried(self, name: str, names: dict[str, Any]) -> bool:
        """Whether `name` still holds what the pass being read of the innermost loop found in it:
        what an earlier pass (or the code before the loop) left there. A value made by its binding
        is told by its identity, on each arm of an `if`; a shared one (UNKNOWN) by the name not
        being bound in the pass so far."""
        loop = self.open[-1] if self.open else None
        if loop is None or name not in loop.found or names.get(name) is not loop.found[name]:
            return False
        return isinstance(loop.found[name], (Branch, Part, ParamRef)) or name not in loop.rebound

    def end_pass(self, names: dict[str, Any] | None = None) -> None:
        """The pass read to its end, the names as it leaves them (None: left by a `return`)."""
        loop = self.open[-1]
        for (_, container), one in zip(loop.walked, loop.passes):
            loop.fresh[id(container)] = loop.fresh.get(id(container), True) and one.fresh()
            facts = self.facts[id(container)]
            facts.renormalised = facts.renormalised is not False and names is not None and one.renormalised(names)
        loop.passes = []

    def called(self, name: str, read: set[str], statement: object) -> None:
        """A call of `name` (or `name.forward`) in `statement`, with the names it read so far."""
        for loop in self.open:
            for one in loop.passes:
                if one.block == name:
                    one.calls += 1
                    one.called_now = True
                    one.taken |= one.origins(read - {name})
                    one.otherwise = one.otherwise or id(statement) not in loop.top

    def statement(self, read: set[str], bound: set[str]) -> None:
        """A statement read: the names it read and those it bound or stored into."""
        bound = bound | self.changed
        self.changed = set()
        for loop in self.open:
            loop.rebound |= bound
            for one in loop.passes:
                if one.block in read and not one.called_now:
                    one.otherwise = True
                from_block = one.called_now or any(one.bound.get(name, (False,))[0] for name in read)
                origins = frozenset(one.origins(read))
                one.called_now = False
                for name in bound:
                    one.bound[name] = (from_block, origins)

    def leave(self) -> None:
        """The `for` read to its end (or to a `return` in its body)."""
        self.end_pass()
        loop = self.open.pop()
        outer = self.open[-1] if self.open else None
        for _, container in loop.walked:
            fresh = loop.fresh.get(id(container), False)  # (no pass read: nothing shown fresh)
            self.facts[id(container)].fresh &= fresh
            if outer is not None and outer.count is not None and any(s is loop.statement for s in outer.body):
                outer.inner.setdefault(id(container), []).append(fresh)
        if loop.count is None or not loop.inner or loop.reads_counter():
            return
        for key, inner in loop.inner.items():
            facts = self.facts[key]
            if len(inner) == 1 and not inner[0] and facts.runs is None:
                facts.runs = loop.count

    def side_by_side(self, container: ModuleNode) -> bool:
        facts = self.facts.get(id(container))
        return facts is not None and facts.loops > 0 and facts.read == facts.loops and facts.fresh

    def renormalised(self, container: ModuleNode) -> bool:
        """Every loop over the blocks of `container` renormalises the stream after each block
        (`for i, blk in enumerate(self.blocks): x = self.norms[i](blk(x))`): each block starts
        from the stream normalised, as after a post-norm block's `norm(x + f(x))`, and every
        read of the container is such a loop."""
        facts = self.facts.get(id(container))
        return facts is not None and facts.loops > 0 and facts.read == facts.loops and facts.renormalised is True

    def runs(self, container: ModuleNode) -> Monomial | None:
        facts = self.facts.get(id(container))
        return facts.runs if facts is not None else None


def spread_of(receiver: Any, name: str, args: list[Any]) -> Spread | None:
    """`x.std(-1)`, `torch.var(x)`, `torch.sqrt(var + eps)`, `var.rsqrt()`: the stream's spread
    (or its reciprocal) that a statistic or a root of it gives. None for any other call."""
    subject = args[0] if receiver is UNKNOWN and args else receiver
    if name in SPREAD_STATISTICS and subject is STREAM:
        return SPREAD
    if name in ROOTS and isinstance(subject, Spread):
        return INVERSE_SPREAD if subject.inverse != (name == "rsqrt") else SPREAD
    return None


def standardised(left: Any, right: Any, operator: cst.BaseBinaryOp, exponent: cst.BaseExpression) -> Any:
    """`(x - mean) / std`, `x * torch.rsqrt(var + eps)`: the stream standardised, as a norm
    leaves it (NORMED). `var + eps`, `std * 2`, `var ** 0.5`, `1 / std`: still a spread of it, or
    its reciprocal. None where no spread takes part."""
    spread = left if isinstance(left, Spread) else right if isinstance(right, Spread) else None
    if spread is None:
        return None
    if isinstance(operator, cst.Divide) and left is STREAM and not spread.inverse:
        return NORMED
    if isinstance(operator, cst.Multiply) and STREAM in (left, right) and spread.inverse:
        return NORMED
    other = right if spread is left else left
    if other is STREAM or other is NORMED or other is MAYBE_NORMED or isinstance(other, (Branch, Part)):
        return None
    if isinstance(operator, cst.Divide) and spread is right:
        return SPREAD if spread.inverse else INVERSE_SPREAD  # `1 / std`
    if isinstance(operator, cst.Power) and spread is left:
        negative = isinstance(exponent, cst.UnaryOperation) and isinstance(exponent.operator, cst.Minus)
        return INVERSE_SPREAD if spread.inverse != negative else SPREAD  # `var ** -0.5`
    return spread if isinstance(operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)) else None
