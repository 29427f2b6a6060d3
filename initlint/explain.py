"""`initlint explain`: the init plan the analysis inferred, as a table a reviewer can read."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Sequence

import libcst as cst

from initlint.analysis import analyze
from initlint.analysis.index import ModuleIndex
from initlint.analysis.model import Analysis, FinalInit, ModuleNode, Param, display_parameters, final_init
from initlint.analysis.facts import writer_facts
from initlint import guard, roles
from initlint.analysis.flow import is_norm
from initlint.analysis.linking import describe_place, linker_of
from initlint.config import Settings
from initlint.engine import UnparseableSource, decode, parse_in_project
from initlint.files import STDIN
from initlint.safety import read_regular_file
from initlint.rules.evidence import short, stands_in_for_text

SCALING_NAMES = {
    "none": "no depth factor",
    "negligible": "negligible depth factor",
    "sqrt_2l": "GPT-2 1/sqrt(2L)",
    "sqrt_l": "1/sqrt(L)",
    "per_layer": "per-layer",
    "small_init": "1/L small init",
    "zero": "zero init",
    "other": "other depth factor",
    "unknown": "unknown",
}


def _source(analysis: Analysis, final: FinalInit) -> str:
    op = final.op
    if op is None:
        return "-"
    if op.node is None:
        return "constructor default"
    # The root's constructor opens most routes and goes without saying; a caller elsewhere does not.
    steps = op.via[1:] if op.via and op.via[0].endswith(".__init__") else op.via
    route = " -> ".join(step for step in steps if step)
    return describe_place(analysis.index, op.node, analysis.line_of) + (f" ({short(route, 60)})" if route else "")


def _layer_file(analysis: Analysis, param: Param) -> str:
    """The file that creates the parameter's layer, where that is not the file explained."""
    linker = linker_of(analysis.index)
    created = param.owner.created_at
    place = linker.place(created) if linker is not None and created is not None else None
    return f"{place.path}:{place.line}" if place is not None else ""


_KIND_ROLES = {"linear": roles.LINEAR, "conv": roles.LINEAR, "embedding": roles.EMBEDDING}


def _owner_role(
    name: str, owner: ModuleNode, writers: set[int], heads: set[int], index: ModuleIndex | None = None
) -> str:
    if name == "weight" and id(owner) in writers:
        return roles.WRITER
    if name == "weight" and id(owner) in heads:
        return roles.HEAD
    if is_norm(owner):
        if name in ("weight", "bias"):
            return roles.NORM_GAIN if name == "weight" else roles.NORM_BIAS
        return _norm_role_by_use(owner, name, index)
    if name == "bias":
        return roles.BIAS
    return _KIND_ROLES.get(owner.kind, roles.PARAMETER)


class _ParameterUse(cst.CSTVisitor):
    """How a norm's `forward` combines `self.<name>` with the normalised value: a factor of a
    product is its gain, a term of a sum its bias."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.roles: set[str] = set()

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if not any(self._is_parameter(side) for side in (node.left, node.right)):
            return
        if isinstance(node.operator, (cst.Multiply, cst.Divide)):
            self.roles.add(roles.NORM_GAIN)
        elif isinstance(node.operator, (cst.Add, cst.Subtract)):
            self.roles.add(roles.NORM_BIAS)

    def _is_parameter(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Attribute)
            and node.attr.value == self.name
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        )


def _norm_role_by_use(owner: ModuleNode, name: str, index: ModuleIndex | None) -> str:
    """A norm parameter named otherwise than `weight`/`bias` (`a_2`, `b_2`): its role is how the
    norm's `forward` uses it; a parameter it uses both ways or not at all is just a parameter."""
    found = index.find_method(owner.cls, "forward") if index is not None and owner.cls is not None else None
    if found is None:
        return roles.PARAMETER
    use = _ParameterUse(name)
    found[1].visit(use)
    return use.roles.pop() if len(use.roles) == 1 else roles.PARAMETER


def _owners(root: ModuleNode) -> dict[int, list[tuple[str, ModuleNode]]]:
    """Every (attribute name, module) a parameter is registered under: a tied one has several."""
    found: dict[int, list[tuple[str, ModuleNode]]] = {}
    pending = [root]
    while pending:
        node = pending.pop()
        for name, param in node.params.items():
            found.setdefault(id(param), []).append((name, node))
        pending.extend(child for _, child in node.members())
    return found


def _role(
    param: Param, owners: list[tuple[str, ModuleNode]], writers: set[int], heads: set[int], index: ModuleIndex
) -> str:
    """The runtime's role key: a tied `wte`/`lm_head` weight is an embedding."""
    role = _owner_role(param.name, param.owner, writers, heads, index)
    for name, owner in owners:
        role = roles.stronger(role, _owner_role(name, owner, writers, heads, index))
    return role


def constant_of(final: FinalInit) -> str | None:
    """The value a constant init leaves (`"1"` for ones, `"1e-05"` for a fill of a known value,
    `"?"` for one we cannot read), else None."""
    constant = {"ones": "1", "zeros": "0", "constant": "?"}.get(final.kind)
    support = final.op.support if final.op is not None and len(final.chain) == 1 else None
    if constant is None or support is None or support[0] != support[1]:
        return constant
    return f"{support[0]:g}"


def _std_text(final: FinalInit) -> str:
    """The std, or the value of a constant init as the runtime table writes it (`constant 1`)."""
    constant = constant_of(final)
    if constant is not None:
        return f"constant {constant}"
    return final.std.describe() if final.std is not None else "?"


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            lines.append("  " + "  ".join("-" * width for width in widths))
    return lines


@dataclass
class PlanRow:
    """One parameter of the plan as data: `explain` prints it; tests hold it against the runtime table."""

    name: str
    tied: list[str]
    param: Param
    role: str  # a key of `initlint.roles`
    final: FinalInit


def plan_rows(analysis: Analysis, root: ModuleNode) -> list[PlanRow]:
    writers = {id(writer.node) for stack in analysis.stacks if stack.root is root for writer in stack.writers}
    owners, heads = _owners(root), {id(head) for head in analysis.heads}
    return [
        PlanRow(
            name,
            tied,
            param,
            _role(param, owners.get(id(param), []), writers, heads, analysis.index),
            final_init(param),
        )
        for name, param, tied in display_parameters(root)
    ]


def _side_by_side_notes(analysis: Analysis, root: ModuleNode) -> list[str]:
    """Why the lists of blocks run side by side hold no stack (their writers owe no depth factor)."""
    notes = []
    for apart in (stack for stack in analysis.side_by_side if stack.root is root):
        owner = apart.container.parent
        notes.append(
            f"  note: {apart.container.path}: {apart.block.type_name} blocks run side by side "
            f"({owner.type_name if owner is not None else 'the owner'}.forward hands each a value built afresh): "
            "their count is no depth"
        )
    return notes


def explain_root(analysis: Analysis, root: ModuleNode) -> list[str]:
    stacks = [stack for stack in analysis.stacks if stack.root is root]
    header = f"{root.type_name}"
    if root.foreign and root.created_at is not None:
        where = describe_place(analysis.index, root.created_at, analysis.line_of)
        header += f" (assumed: {where} stacks this file's blocks)"
    if root.stands_in_for:
        header += f" ({stands_in_for_text(root)})"
    if root.flipped_choice is not None:
        header += (
            f" (with `{short(analysis.code(root.flipped_choice), 60)}` taken the other way than its defaults take it)"
        )
    if root.preset is not None:
        header += f" (as the preset `{root.preset.name}` builds it: `{root.preset.setting}`)"
    for stack in stacks:
        prenorm = "pre-norm" if stack.prenorm else "not pre-norm"
        header += (
            f" — {stack.container.path or 'blocks'}: {stack.block.type_name} x {stack.depth_source.removeprefix('1*')}, "
            f"{stack.adds_per_block} residual add(s) per block, {prenorm}"
        )
    rows = [("parameter", "role", "final init", "std", "depth scaling", "set at", "layer from")]
    facts_of_weight = {id(facts.weight): facts for facts in writer_facts(analysis) if facts.stack.root is root}
    for row in plan_rows(analysis, root):
        final, param = row.final, row.param
        facts = facts_of_weight.get(id(param))
        scaling = facts.scaling.kind if facts is not None and facts.scaling is not None else "unknown"
        label = final.op.label if final.op is not None else "?"
        if len(final.chain) > 1:
            label += " then " + ", ".join(op.label for op in final.chain[1:])
        rows.append(
            (
                row.name + (f" (= {', '.join(row.tied)})" if row.tied else ""),
                roles.label(row.role),
                short(label, 60) + ("" if final.certain else " (uncertain)"),
                _std_text(final),
                SCALING_NAMES[scaling] if facts is not None else "",
                _source(analysis, final),
                _layer_file(analysis, param),
            )
        )
    lines = [header, *_side_by_side_notes(analysis, root)]
    if root.uncalled_init:
        lines.append(
            "  note: init functions not run by the constructor (applied elsewhere?): " + ", ".join(root.uncalled_init)
        )
    if len(rows) > 1:
        lines.extend(_table(rows))
    else:
        lines.append("  (no parameters found)")
    return lines


def explain_source(source: str, path: str, settings: Settings | None = None) -> str:
    """The plan table for one file; a file that cannot be analysed gets one line, never a traceback."""

    def render() -> str:
        module, project = parse_in_project(source, path, settings or Settings())
        analysis = analyze(module, (settings or Settings()).analysis, source, project)
        if not analysis.roots:
            return f"{path}: no nn.Module model classes found\n"
        out = [f"{path}"]
        for root in analysis.roots:
            out.extend("  " + line for line in explain_root(analysis, root))
        return "\n".join(out) + "\n"

    try:
        return guard.run_bounded(render)
    except UnparseableSource as error:
        return f"{path}: cannot parse: {error.reason}\n"
    except guard.BudgetExceeded:
        return f"{path}: analysis ran past its time budget\n"
    except Exception as error:  # a bug in initlint: one line, as INI902 does for `check`
        return f"{path}: internal error: {type(error).__name__}: {error}\n"


def explain_notebook(name: str, settings: Settings | None = None) -> str:
    """The plan of a notebook's code cells, joined in order as `check` reads them; the table's
    line numbers count in that joined code, so say where each cell starts in it."""
    from initlint.notebook import NotebookError, parse_notebook

    try:
        notebook = parse_notebook(read_regular_file(name))
    except OSError as error:
        return f"{name}: cannot read: {error.strerror or error}\n"
    except NotebookError as error:
        return f"{name}: {error}\n"
    header, _, rest = explain_source(notebook.source, name, settings).partition("\n")
    if header != name or not notebook.cells:
        return f"{header}\n{rest}"
    starts = ", ".join(f"cell {cell.number} from line {cell.first_line}" for cell in notebook.cells)
    return f"{header}\n  (lines count in the code cells joined in order: {starts})\n{rest}"


def explain_files(files: list[str], settings_for: Callable[[str], Settings] | None = None) -> str:
    """The plan of each file, under the settings `settings_for(path)` gives it (default: none)."""
    from initlint.notebook import is_notebook

    parts = []
    for name in files:
        settings = settings_for(name) if settings_for is not None else None
        if is_notebook(name):
            parts.append(explain_notebook(name, settings))
            continue
        if name == STDIN:
            parts.append(explain_source(sys.stdin.read(), "<stdin>", settings))
            continue
        try:
            source = decode(read_regular_file(name))
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as error:
            parts.append(f"{name}: cannot read: {error}\n")
            continue
        parts.append(explain_source(source, name, settings))
    return "\n".join(parts)
