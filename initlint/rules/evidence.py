"""Phrases every rule uses to show its evidence: which layer, which init, from which line."""

from __future__ import annotations

from initlint.analysis.model import Analysis, InitOp, ResidualAdd, Stack, Writer


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
    route = f" via {short(route, 120)}" if route else ""
    return f"{op.label} (line {analysis.line_of(op.node)}{route})"


def count_adds(analysis: Analysis, stack: Stack) -> str:
    lines = sorted({analysis.line_of(add.statement) for add in stack.adds})
    return f"{len(lines)} residual adds per block (lines {', '.join(map(str, lines))})"
