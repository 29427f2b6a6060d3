"""The presets that build a model: module-level functions that set its flags with literals.

A model class or builder may take a flag with no default (`layer_norm_first: bool`) that only
its presets set: `def base(): return build(..., layer_norm_first=False)`, `def large(): return
build(..., layer_norm_first=True)`, often in another file, and often through a function that
passes the flag on (`def build(..., encoder_norm_first): return Model(...,
layer_norm_first=encoder_norm_first)`). Which models the project builds is what those literals
say. Cheap by construction: asked only for a model whose blocks an undecided flag leaves neither
pre-norm nor post-norm; a byte search for the name over the project's bytes (read once for the
run, `text.py`), the `ast` read of each file left (`Parsed.uses`: which functions use the name),
and a LibCST walk of those functions only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from initlint.analysis.cst_walk import walk
from initlint.analysis.index import dotted_name
from initlint.analysis.positions import LazyPositions
from initlint.project.layout import Location
from initlint.project.store import Parsed
from initlint.project.symbols import CLASS, FUNCTION, Symbol

#: Functions that pass a flag on, followed this many calls away from the model.
MAX_HOPS = 3
#: At most this many presets are returned (the first in the project's file order).
MAX_PRESETS = 64
_LITERALS = {"True": True, "False": False}


@dataclass(frozen=True)
class Flag:
    """A literal a preset sets one of the model's parameters to."""

    parameter: str
    value: bool
    #: the literal argument (`encoder_norm_first=True`), or a parameter's literal default
    node: cst.CSTNode
    path: Path
    parsed: Parsed

    @property
    def line(self) -> int:
        found = LazyPositions(self.parsed.module, self.parsed.source).get(self.node)
        return found.start.line if found is not None else 1

    @property
    def text(self) -> str:
        """`encoder_norm_first=True`, as the preset's file writes it."""
        code = self.parsed.module.code_for_node
        node = self.node
        if isinstance(node, cst.Param) and node.default is not None:
            return f"{node.name.value}={code(node.default)}"
        if isinstance(node, cst.Arg):
            return f"{node.keyword.value}={code(node.value)}" if node.keyword is not None else code(node.value)
        return code(node)


@dataclass(frozen=True)
class Preset:
    """A module-level function that builds the model with literal flags."""

    name: str
    path: Path
    flags: tuple[Flag, ...]

    @property
    def binding(self) -> tuple[tuple[str, bool], ...]:
        return tuple(sorted((flag.parameter, flag.value) for flag in self.flags))


@dataclass(frozen=True)
class Signature:
    """The parameters a call fills: positional ones in order, keyword-only ones, bool defaults."""

    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    defaults: tuple[tuple[str, cst.Param], ...] = ()

    @classmethod
    def of(cls, func: cst.FunctionDef, method: bool = False) -> Signature:
        params = func.params.params[1:] if method else func.params.params
        every = [*func.params.posonly_params, *params, *func.params.kwonly_params]
        defaults = tuple(
            (param.name.value, param)
            for param in every
            if isinstance(param.default, cst.Name) and param.default.value in _LITERALS
        )
        positional = tuple(param.name.value for param in [*func.params.posonly_params, *params])
        return cls(positional, tuple(param.name.value for param in func.params.kwonly_params), defaults)

    def names(self) -> frozenset[str]:
        return frozenset(self.positional + self.keyword_only)


def find_presets(project, target: Symbol, signature: Signature, wanted: frozenset[str]) -> list[Preset]:
    """The presets that set any of the `wanted` parameters of `target` (a class or function of
    the project) with `True`/`False`, directly or through functions passing them on; searched
    once per target and run."""
    key = (target.qualified, target.path, wanted)  # two script folders may define one module name
    found = project.presets.get(key)
    if found is None:
        found = project.presets[key] = _presets(project, target, signature, wanted, MAX_HOPS)[:MAX_PRESETS]
    return found


def _presets(project, target: Symbol, signature: Signature, wanted: frozenset[str], hops: int) -> list[Preset]:
    found: list[Preset] = []
    for path, parsed, location, func, call in _calls_of(project, target):
        literals, passed = _arguments(path, parsed, call, signature, wanted, func)
        outer: list[Preset] = []
        if passed and hops > 1:
            symbol = project.resolve_symbol(location, func.name.value)
            if symbol.kind == FUNCTION and not symbol.attribute:
                outer_signature = Signature.of(func)
                outer = _presets(project, symbol, outer_signature, frozenset(passed.values()), hops - 1)
                outer = [_through(preset, literals, passed, outer_signature, path, parsed) for preset in outer]
        if outer:
            found.extend(preset for preset in outer if preset.flags)
        elif literals:
            found.append(Preset(func.name.value, path, tuple(literals)))
        if len(found) >= MAX_PRESETS:
            break
    return found


def _through(
    preset: Preset, literals: list[Flag], passed: dict[str, str], outer: Signature, path: Path, parsed: Parsed
) -> Preset:
    """An outer preset's flags, renamed to the parameters they are passed on to; a flag the preset
    leaves out keeps the passing function's literal default."""
    given = {flag.parameter: flag for flag in preset.flags}
    defaults = dict(outer.defaults)
    flags = list(literals)
    for parameter, name in passed.items():
        flag = given.get(name)
        if flag is not None:
            flags.append(Flag(parameter, flag.value, flag.node, flag.path, flag.parsed))
        elif name in defaults:
            default = defaults[name].default
            assert isinstance(default, cst.Name)
            flags.append(Flag(parameter, _LITERALS[default.value], defaults[name], path, parsed))
    return Preset(preset.name, preset.path, tuple(flags))


def _arguments(
    path: Path, parsed: Parsed, call: cst.Call, signature: Signature, wanted: frozenset[str], func: cst.FunctionDef
) -> tuple[list[Flag], dict[str, str]]:
    """The wanted parameters the call sets with a literal, and those it fills with a parameter
    of the calling function (parameter -> the caller's parameter)."""
    own = Signature.of(func).names()
    literals: list[Flag] = []
    passed: dict[str, str] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            break  # `*args`, `**config`: nothing after it can be placed, nor what it holds
        if arg.keyword is not None:
            parameter = arg.keyword.value
        elif position < len(signature.positional):
            parameter = signature.positional[position]
        else:
            continue
        if parameter not in wanted:
            continue
        value = arg.value
        if isinstance(value, cst.Name) and value.value in _LITERALS:
            literals.append(Flag(parameter, _LITERALS[value.value], arg, path, parsed))
        elif isinstance(value, cst.Name) and value.value in own:
            passed[parameter] = value.value
    return literals, passed


class _Calls(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if last == self.name:
            self.found.append(node)


def _calls_of(project, target: Symbol):
    """(file, its parse, its location, the module-level function, the call) for each call of
    `target` inside a module-level function of the project."""
    name = target.name or ""
    for path in project.text.containing(name.encode()):
        parsed = project.store.parsed(path)
        if not isinstance(parsed, Parsed):
            continue
        using = parsed.uses.functions_using(name)
        location = project.layout.location_of(path)
        for statement in parsed.module.body:
            if not isinstance(statement, cst.FunctionDef) or (using is not None and statement.name.value not in using):
                continue
            calls = _Calls(name)
            walk(statement, calls)
            for call in calls.found:
                if _calls_target(project, location, parsed, call.func, target):
                    yield path, parsed, location, statement, call


def _calls_target(project, location: Location | None, parsed: Parsed, func: cst.BaseExpression, target: Symbol) -> bool:
    dotted = dotted_name(func)
    if dotted is None or location is None:
        return False
    head, _, rest = dotted.partition(".")
    index = parsed.index
    if head not in index.imports and (rest or head not in index.functions and head not in index.classes):
        return False
    symbol = project.resolve_symbol(location, dotted)  # as the file writes it; its file is parsed already
    return (
        symbol.kind in (CLASS, FUNCTION)
        and not symbol.attribute
        and (symbol.qualified, symbol.path) == (target.qualified, target.path)
    )
