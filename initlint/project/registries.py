"""What the project registers under a name in a registry object, from anywhere in the project.

Libraries pick layers by name from a registry that modules fill when they are imported:
`norms.register("layernorm", func=nn.LayerNorm)`, `@attention_classes.register_class("mha")`
over a class, `@MODELS.register_module()` (the class's own name). The registry object is a
module-level constant; `registry.get(name)` returns what was registered. Only module-level
statements count (those run on import, inside a top-level `if` or `try` included): a call in a
function may never run. Cheap by construction: a byte search for the registry's name and for
`register` over the project's files, then a tree of the files left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

import libcst as cst

from initlint.analysis.index import dotted_name
from initlint.project.store import Parsed

#: Method names that add an entry: catalogue (`register`, `register_class`), mmengine
#: (`register_module`).
REGISTER_METHODS = frozenset({"register", "register_class", "register_module"})
#: Keywords that carry the registered object in a call (`register(name, func=f)`).
_VALUE_KEYWORDS = ("func", "module", "obj", "cls")


@dataclass(frozen=True)
class Registration:
    """One entry: its name and what it stands for, to be read in the registering file."""

    name: str
    path: Path
    parsed: Parsed = field(repr=False)
    #: the registered expression (`nn.Linear` in `register("torch", func=nn.Linear)`), or None
    value: cst.BaseExpression | None
    #: the decorated class or function, for a decorator registration
    definition: cst.ClassDef | cst.FunctionDef | None


def _top_level(body: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    """Module-level statements, through top-level `if` and `try` blocks (both arms)."""
    found: list[cst.CSTNode] = []
    for statement in body:
        if isinstance(statement, cst.If):
            found.extend(_top_level(statement.body.body))
            if isinstance(statement.orelse, cst.Else):
                found.extend(_top_level(statement.orelse.body.body))
            elif isinstance(statement.orelse, cst.If):
                found.extend(_top_level([statement.orelse]))
        elif isinstance(statement, cst.Try):
            found.extend(_top_level(statement.body.body))
        else:
            found.append(statement)
    return found


def _string(arg: cst.Arg | None) -> str | None:
    if arg is None or not isinstance(arg.value, cst.SimpleString):
        return None
    value = arg.value.evaluated_value
    return value if isinstance(value, str) else None


def _argument(call: cst.Call, position: int, keywords: tuple[str, ...]) -> cst.Arg | None:
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in keywords:
            return arg
    return positional[position] if len(positional) > position else None


def _register_call(node: cst.BaseExpression) -> tuple[str, cst.Call] | None:
    """`R.register(...)`: the receiver's dotted name and the call."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    if node.func.attr.value not in REGISTER_METHODS:
        return None
    receiver = dotted_name(node.func.value)
    return (receiver, node) if receiver is not None else None


def _call_entry(small: cst.BaseSmallStatement) -> tuple[str, str, cst.BaseExpression] | None:
    """`R.register("name", func=F)`: the receiver, the name, the registered expression."""
    hit = _register_call(small.value) if isinstance(small, cst.Expr) else None
    if hit is None:
        return None
    name = _string(_argument(hit[1], 0, ("name",)))
    value = _argument(hit[1], 1, _VALUE_KEYWORDS)
    return (hit[0], name, value.value) if name is not None and value is not None else None


def registrations_in(path: Path, parsed: Parsed) -> dict[str, list[Registration]]:
    """Every module-level registration of the file, by the receiver's name as the file writes it."""
    found: dict[str, list[Registration]] = {}
    for statement in _top_level(parsed.module.body):
        if isinstance(statement, (cst.ClassDef, cst.FunctionDef)):
            for decorator in statement.decorators:
                hit = _register_call(decorator.decorator)
                if hit is not None:
                    name = _string(_argument(hit[1], 0, ("name",))) or statement.name.value
                    found.setdefault(hit[0], []).append(Registration(name, path, parsed, None, statement))
        elif isinstance(statement, cst.SimpleStatementLine):
            for entry in filter(None, map(_call_entry, statement.body)):
                found.setdefault(entry[0], []).append(Registration(entry[1], path, parsed, entry[2], None))
    return found


def _registry_of(project, path: Path, parsed: Parsed, receiver: str) -> str:
    """The qualified name of the registry a receiver names, read from its file."""
    location = project.layout.location_of(path)
    head = receiver.partition(".")[0]
    if head not in parsed.index.imports and location is not None and location.name:
        return f"{location.name}.{receiver}"
    return project.resolve(location, parsed.index.resolve(cst.parse_expression(receiver)) or receiver).qualified


#: `name.register(`, `name.register_class(`, `name.register_module(`: a byte pattern that finds
#: the receivers without a parse (`register_buffer(` is not one). A match starts only where a
#: word does: tried inside each word too, `\w+` backtracked over the rest of it (a third of the
#: analysis of a transformers file); a match found inside a word would start at its start anyway.
_REGISTER_CALL = re.compile(rb"(?<!\w)(\w+)\s*\.\s*(?:register|register_class|register_module)\s*\(")
#: The same call without its receiver: a literal-led search, ten times faster, that keeps the
#: files calling no `register` method (those with only `register_buffer`) from the pattern above.
_REGISTER_METHOD = re.compile(rb"\.\s*(?:register|register_class|register_module)\s*\(")


def _files_by_receiver(project) -> dict[bytes, list[Path]]:
    """The project's files by the names they call a `register` method on: one byte scan per run."""
    if project.register_receivers is None:
        found: dict[bytes, list[Path]] = {}
        for path in project.text.containing(b"register"):
            data = project.text.data(path) or b""
            for name in set(_REGISTER_CALL.findall(data)) if _REGISTER_METHOD.search(data) else ():
                found.setdefault(name, []).append(path)
        project.register_receivers = found
    return project.register_receivers


def find_registrations(project, qualified: str) -> list[Registration]:
    """Every registration into the registry constant `qualified` (`pkg.registry.norms`), in the
    order of the project's sorted files."""
    known: list[Registration] | None = project.registered.get(qualified)
    if known is not None:
        return known
    found: list[Registration] = []
    project.registered[qualified] = found
    for entries in _registrations_by_file(project, qualified):
        found.extend(entries)
    return found


def has_registrations(project, qualified: str) -> bool:
    """Whether the project registers anything into `qualified`: the files are parsed only up to
    the first that does (funasr registers into one table from 185 files: a parse of each)."""
    known: list[Registration] | None = project.registered.get(qualified)
    if known is not None:
        return bool(known)
    return next(_registrations_by_file(project, qualified), None) is not None


def _registrations_by_file(project, qualified: str) -> Iterator[list[Registration]]:
    short = qualified.rpartition(".")[2]
    for path in _files_by_receiver(project).get(short.encode(), []):
        for receiver, entries in _file_registrations(project, path).items():
            if (
                receiver.rpartition(".")[2] == short
                and _registry_of(project, path, entries[0].parsed, receiver) == qualified
            ):
                yield entries


def _file_registrations(project, path: Path) -> dict[str, list[Registration]]:
    by_receiver = project.file_registrations.get(path)
    if by_receiver is None:
        parsed = project.store.parsed(path)
        by_receiver = project.file_registrations[path] = (
            registrations_in(path, parsed) if isinstance(parsed, Parsed) else {}
        )
    return by_receiver


def registries_filled(project, path: Path) -> set[str]:
    """The qualified names of the registries `path` registers into at import time."""
    if not any(path in paths for paths in _files_by_receiver(project).values()):
        return set()  # no `register` call in its bytes: no parse
    return {
        _registry_of(project, path, entries[0].parsed, receiver)
        for receiver, entries in _file_registrations(project, path).items()
    }
