"""Stage 5: what the rules and `explain` ask about each residual writer, computed once.

Every writer of every stack gets one `WriterFacts`: its final init, how that init scales with
depth, the runtime factors on its branch that involve depth or width, and whether the stack is
one the depth rule applies to. INI001, INI002, INI003 and `initlint explain` read these facts
instead of each working them out again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from initlint.analysis.model import (
    FinalInit,
    InitOp,
    ModuleNode,
    Param,
    RuntimeScale,
    Stack,
    Writer,
    display_parameters,
    final_init,
)
from initlint.analysis.scaling import DepthScaling, scale_atoms, stack_scaling
from initlint.analysis.values import Monomial

if TYPE_CHECKING:  # pragma: no cover
    from initlint.analysis.model import Analysis


@dataclass(frozen=True)
class WriterFacts:
    stack: Stack
    writer: Writer
    #: `h.*.attn.c_proj`: the writer under its repeated container.
    pattern: str
    #: What the weight ends with; None for a writer without a weight.
    final: FinalInit | None
    #: How the final std scales with depth; None unless the final init is certain.
    scaling: DepthScaling | None
    #: Factors on the writer's branch in `forward` that involve depth or width.
    runtime_scales: tuple[RuntimeScale, ...]
    #: One of those factors also has a tunable multiplier (MiniCPM's `scale_depth / sqrt(L)`):
    #: a designed depth parametrisation, not a stray constant.
    tuned_runtime_scale: bool = False
    #: For a writer the model's own code allocates with `torch.empty` and leaves so: a parameter
    #: the model's own code does draw, the op that draws it, and whether that parameter was
    #: allocated with `torch.empty` too (see `drawn_by_code`).
    drawn_beside: tuple[str, InitOp, bool] | None = None

    @property
    def weight(self) -> Param | None:
        return self.writer.weight

    @property
    def residual_adds(self) -> str:
        """N, the number of residual adds in the stack, as an expression: `2 * n_layer`."""
        return self.stack.stream_adds or adds_in(self.stack)

    @property
    def in_prenorm_stream(self) -> bool:
        """Added straight into a pre-norm stream, with no learned gate deciding its scale."""
        return bool(self.writer.add.prenorm) and not self.writer.add.gated


def writer_pattern(stack: Stack, writer: Writer) -> str:
    """The writer under its repeated container, each repeated module above it shown as `*` too
    (`stages.*.cells.*.mlp.fc2`), as `explain` names parameters."""
    if not writer.node.is_under(stack.block):
        # Held by the block, registered in another list first: named as PyTorch names it there.
        path = _starred_path(writer.node)
        return path if writer.ref.param == "weight" else f"{path}.{writer.ref.param}"
    container, path = _starred_path(stack.container), writer.ref.display
    return f"{container}.*.{path}" if container else f"*.{path}"


def _starred_path(node: ModuleNode) -> str:
    parts: list[str] = []
    current: ModuleNode | None = node
    while current is not None and current.parent is not None:
        parts.append("*" if current.repeat is not None else current.name)
        current = current.parent
    return ".".join(reversed(parts))


def facts_of(analysis: "Analysis", stack: Stack, writer: Writer) -> WriterFacts:
    weight = writer.weight
    final = final_init(weight) if weight is not None else None
    scaling = stack_scaling(analysis, stack, final.std) if final is not None and final.certain else None
    if final is not None and final.alternatives:
        scaling = _common_scaling([stack_scaling(analysis, stack, std) for std in final.alternatives])
    possible = each_possible_std(final) if final is not None else ()
    if possible:
        scaling = _common_scaling([stack_scaling(analysis, stack, std) for std in possible])
    drawn = None
    if final is not None and final.certain and final.kind == "empty":
        scaling = DepthScaling("none")  # uninitialised memory: whatever it holds, no depth factor
        if weight is not None and weight.created_at is not None:
            # Allocated by the model's own code: where nothing in it draws a parameter, its
            # values are loaded (a checkpoint), not mis-initialised; the writer is not judged.
            drawn = drawn_by_code(stack.root)
            scaling = scaling if drawn is not None else None
    runtime = tuple(scale for scale in writer.ref.scales if scale_atoms(analysis, scale.factor))
    tuned = any(
        exponent > 0 and name not in scale_atoms(analysis, scale.factor)
        for scale in runtime
        for name, exponent in scale.factor.atoms
    )
    return WriterFacts(stack, writer, writer_pattern(stack, writer), final, scaling, runtime, tuned, drawn)


#: Init op kinds that fill a tensor with random values (an init function, `torch.randn`).
_DRAWS = frozenset(
    {
        "normal",
        "uniform",
        "trunc_normal",
        "kaiming_normal",
        "kaiming_uniform",
        "xavier_normal",
        "xavier_uniform",
        "orthogonal",
    }
)


def drawn_by_code(root: ModuleNode) -> tuple[str, InitOp, bool] | None:
    """A parameter of the model its own code draws random values into, and the op that does:
    one also allocated with `torch.empty` first (the init code fills what the model allocates),
    else any. None where its code draws nothing (allocations, constants, constructor defaults
    alone, as in inference code whose weights a checkpoint fills): nothing initialises the
    model's own `torch.empty` parameters on purpose, and none is left out by mistake."""
    found = None
    for name, param, _ in display_parameters(root):
        op = next((op for op in param.ops if op.node is not None and op.kind in _DRAWS), None)
        if op is not None and param.created_at is not None and param.ops[0].kind == "empty":
            return name, op, True
        found = found or ((name, op, False) if op is not None else None)
    return found


def each_possible_std(final: FinalInit) -> tuple[Monomial, ...]:
    """The stds an uncertain init may end with, where each op of it sets the weight afresh with a
    known std (PyTorch's default, then `xavier_uniform_` or `kaiming_normal_` under tests on an
    argument the analysis could not decide): whichever runs last, the weight ends with one."""
    ops = final.chain
    if final.certain or final.alternatives or not ops or not ops[0].certain:
        return ()
    if any(op.kind in ("scale", "unknown", "copy", "empty") or op.std is None for op in ops):
        return ()
    return tuple(op.std for op in ops if op.std is not None)


def writer_facts(analysis: "Analysis") -> list[WriterFacts]:
    """Facts of every writer of every stack, in stack order (cached on the analysis)."""
    if analysis.writer_facts is None:
        analysis.writer_facts = [
            facts_of(analysis, stack, writer) for stack in analysis.stacks for writer in stack.writers
        ]
    return analysis.writer_facts


def _common_scaling(scalings: list[DepthScaling]) -> DepthScaling | None:
    """Whichever arm of an undecided `if` runs: known only where every arm scales alike."""
    return scalings[-1] if len({scaling.kind for scaling in scalings}) == 1 else None


def adds_in(stack: Stack) -> str:
    """N for one container's blocks: `2 * n_layer`."""
    depth = stack.depth_source.removeprefix("1*")
    return depth if stack.adds_per_block == 1 else f"{stack.adds_per_block} * {depth}"
