"""Phrases every rule uses to show its evidence: which layer, which init, from which line."""

from __future__ import annotations

from initlint.analysis.model import Analysis, InitOp, Param, ResidualAdd, Stack, Writer, display_parameters, final_init


def short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def writer_pattern(stack: Stack, writer: Writer) -> str:
    container = stack.container.path
    return f"{container}.*.{writer.ref.path}" if container else f"*.{writer.ref.path}"


def describe_add(analysis: Analysis, add: ResidualAdd) -> str:
    return f"`{short(analysis.code(add.statement))}` in {add.block.name}.forward, line {analysis.line_of(add.statement)}"


def describe_op(analysis: Analysis, op: InitOp | None) -> str:
    if op is None:
        return "an init initlint could not determine"
    if op.node is None:
        return f"{op.label}; no init code in this file reaches it"
    route = " -> ".join(step for step in op.via if step)
    route = f", via {short(route, 120)}" if route else ""
    return f"{op.label} at line {analysis.line_of(op.node)}{route}"


def count_adds(analysis: Analysis, stack: Stack) -> str:
    lines = sorted({analysis.line_of(add.statement) for add in stack.adds})
    return f"{len(lines)} residual adds per block (lines {', '.join(map(str, lines))})"


def dead_depth_scaling(analysis: Analysis) -> str:
    """Depth-scaled init code guarded by a test that never passed, e.g. a name test matching nothing."""
    for branch in analysis.dead_branches:
        body = analysis.code(branch.body)
        if any(name in body for name in analysis.depth_atoms) and ("init" in body or "normal" in body or "std" in body):
            return (
                f"; the depth-scaled init under `if {short(analysis.code(branch.test), 60)}` "
                f"(line {analysis.line_of(branch)}) never runs: its test matches no parameter"
            )
    return ""


def misdirected_depth_scaling(analysis: Analysis, stack: Stack) -> str:
    """A depth-scaled init that lands on parameters other than the writers' weights."""
    writer_weights = {id(writer.weight) for writer in stack.writers if writer.weight is not None}
    for name, param, _ in display_parameters(stack.root):
        if id(param) in writer_weights:
            continue
        for op in param.ops:
            if op.node is not None and _has_depth(analysis, op):
                final = final_init(param)
                if final.op is op:
                    return f"; the depth-scaled init at line {analysis.line_of(op.node)} reaches `{name}` instead"
    return ""


def _has_depth(analysis: Analysis, op: InitOp) -> bool:
    return op.std is not None and any(atom in analysis.depth_atoms for atom in op.std.atom_names())


def overwritten_depth_scaling(analysis: Analysis, weight: Param) -> str:
    """The writer did get a depth-scaled init, but a later op replaced it."""
    final = final_init(weight)
    for op in weight.ops:
        if op is final.op:
            break
        if op.node is not None and _has_depth(analysis, op):
            return f"; it overwrites the depth-scaled init at line {analysis.line_of(op.node)}"
    return ""


def residual_adds(stack: Stack) -> str:
    """N, the number of residual adds in the stack, as an expression: `2 * n_layer`."""
    depth = stack.depth_source.removeprefix("1*")
    return depth if stack.adds_per_block == 1 else f"{stack.adds_per_block} * {depth}"
