"""The flags a root takes without a default, as the project's presets set them.

`def __init__(self, ..., layer_norm_first: bool)` (or a builder's `def build(..., prenorm)`)
decides in the blocks' `forward` whether they are pre-norm, and only module-level presets set it
(`def large(): return build(..., prenorm=True)`, maybe in another file, maybe through a
function that passes it on). Built with the flag as a symbol, the undecided `if` keeps both arms
and the blocks read as neither; the models the project really builds are those of its presets.
Asked only for a root whose stacks hold an add such a test leaves undecided (`undecided_flags`),
and only for the parameters tested there, so the project is searched (`project/presets.py`) for
those few roots alone.
"""

from __future__ import annotations

from typing import Any

from initlint.analysis.abstract import Const
from initlint.analysis.interp import Interpreter
from initlint.analysis.linking import LinkedInterpreter
from initlint.analysis.model import ModuleNode, PresetBuild, Stack
from initlint.project import CLASS, FUNCTION
from initlint.project.presets import Preset, Signature

#: Distinct sets of flags a root is built with, at most (each one is a model built again).
MAX_BINDINGS = 4


def undecided_flags(stacks: list[Stack]) -> frozenset[str]:
    """The symbols whose undecided tests hold an add of the stacks that is not read as pre-norm:
    with the flag unknown both arms are kept, and the norm one arm places after the add reads as
    post-norm (or as neither)."""
    return frozenset(flag for stack in stacks for add in stack.adds if not add.prenorm for flag in add.flags)


def preset_bindings(
    interp: Interpreter, root: ModuleNode, flags: frozenset[str]
) -> list[tuple[dict[str, Any], PresetBuild]]:
    """Per distinct set of literal values the project's presets give the root's `flags`: those
    values (parameter -> value) and the first preset that sets them. Only the root's parameters
    without a default count: a default is what the model built alone already has."""
    if not isinstance(interp, LinkedInterpreter) or root.foreign:
        return []
    linker = interp.linker
    location = linker.checked.location
    if root.builder is not None:
        name, func, signature = root.builder.name.value, root.builder, Signature.of(root.builder)
    elif root.cls is not None and interp.defined_here(root.cls):
        found = interp.index.find_method(root.cls, "__init__")
        if found is None:
            return []
        name, func, signature = root.cls.name, found[1], Signature.of(found[1], method=True)
    else:
        return []
    params = [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]
    required = frozenset(param.name.value for param in params if param.default is None) & signature.names() & flags
    if location is None or not required:
        return []
    symbol = linker.project.resolve_symbol(location, name)
    if symbol.kind not in (CLASS, FUNCTION) or symbol.attribute:
        return []
    groups: dict[tuple[tuple[str, bool], ...], list[Preset]] = {}
    for preset in linker.project.find_presets(symbol, signature, required):
        groups.setdefault(preset.binding, []).append(preset)
    found_bindings = []
    for binding, presets in list(groups.items())[:MAX_BINDINGS]:
        first = presets[0]
        flag = first.flags[0]
        linker.module(flag.path, flag.parsed)  # the literal's file and line show in the evidence
        build = PresetBuild(first.name, flag.text, flag.node, len(presets) - 1)
        found_bindings.append(({parameter: Const(value) for parameter, value in binding}, build))
    return found_bindings
