"""Which files of the project use a file's definitions: where its blocks are stacked.

A file that only defines layers and blocks builds no model by itself; the model that stacks its
blocks lives in another file (`model.py` does `from .blocks import Block`). Checked alone, the
block file is analysed with the models of those files. Cheap by construction: a byte search over
the project's files for the names of the file's modules (classes with a `forward`) and for a
class statement, then the summaries of the few files left (from the disk cache, or a parse the
run shares), whose imports are resolved.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from typing import Callable

from initlint.project.registries import registries_filled
from initlint.project.symbols import MODULE, Symbol

#: Files that import from another one, followed this many imports away from the checked file.
MAX_DISTANCE = 3
#: At most this many using files are returned (the nearest first): a layer imported all over a
#: large project is analysed with a few of its models, not all of them.
MAX_USERS = 12


def direct_users(project, path: Path) -> list[Path]:
    """The project files (sorted) that define a class and import one of the modules `path`
    defines (a class with a `forward`), or `path` itself as a module."""
    summary = project.store.summary(path)
    # `blocks.Block(...)` after `import pkg.blocks as blocks` names the class too
    names = [name for name, (_, methods) in summary.classes.items() if "forward" in methods]
    if summary.error is not None or not names:
        return []
    return _importers(project, path, names) + _table_users(project, path, names)


def _table_users(project, path: Path, names: list[str]) -> list[Path]:
    """The files that look `path`'s modules up in a table of a file without classes.

    A package `__init__.py` that maps names to layer classes (`MLPS = {"gelu": GeluMlp}`) builds
    nothing itself; the block that picks a layer by name imports the table, which is defined
    there, not in `path`. So the users of such a file are the importers of its tables."""
    found: list[Path] = []
    for relay in _importers(project, path, names, with_classes=False):
        tables = [name for name in project.store.summary(relay).constants if not name.startswith("__")]
        found.extend(_importers(project, relay, tables) if tables else [])
    return [user for user in dict.fromkeys(found) if user != path]


def _importers(project, path: Path, names: list[str], with_classes: bool = True) -> list[Path]:
    """The project files (sorted) that import `path` or one of its `names` and define a class
    (with `with_classes` false: that define none)."""
    location = project.layout.location_of(path)
    if location is None:
        return []
    # `from pkg import layers` (to fill a registry) names the module, not its classes
    needles = [name.encode() for name in names] + [location.name.rpartition(".")[2].encode()]
    text = project.text
    naming = {other for needle in needles for other in text.containing(needle)}
    found = []
    for other in project.python_files():
        if other == path or other not in naming or text.defines_class(other) != with_classes:
            continue  # a file that names none of them cannot use them
        if any(origin == path for _, origin in _resolved_imports(project, other)):
            found.append(other)
    return found


def _defined_in(symbol) -> Path | None:
    target = symbol.location.path if symbol.kind == MODULE and symbol.location is not None else symbol.path
    return Path(os.path.realpath(target)) if target is not None else None


def _imports_from(project, importer: Path, wanted: Callable[[Symbol], bool]) -> bool:
    return any(wanted(symbol) for symbol, _ in _resolved_imports(project, importer))


def _resolved_imports(project, importer: Path) -> tuple[tuple[Symbol, Path | None], ...]:
    """Every import of `importer` resolved, with the file that defines it: once per file and run.
    The users' search asks each file of the frontier's neighbourhood again for every file it
    starts from; resolving the imports each time was most of a whole-project check."""
    found = project.resolved_imports.get(importer)
    if found is None:
        summary = project.store.summary(importer)
        location = project.layout.location_of(importer)
        symbols = (
            [project.resolve(location, qualified) for qualified in summary.imports.values()]
            if summary.error is None and location is not None
            else []
        )
        found = project.resolved_imports[importer] = tuple((symbol, _defined_in(symbol)) for symbol in symbols)
    return found


def _named(qualified: str, symbol: Symbol) -> bool:
    return symbol.qualified == qualified


def registry_users(project, path: Path) -> list[Path]:
    """The users of a file that registers its layers into a registry of the project.

    Such a file is imported by nobody who builds its layers (often only by a package
    `__init__`, to fill the registry): the model reaches them by looking the registry up, in a
    class of its own or in a builder function that its classes import. So its users are the
    files that import the registry and define a class, and the files that import the functions
    of a file that looks the registry up.
    """
    found: list[Path] = []
    for qualified in sorted(registries_filled(project, path)):
        short = qualified.rpartition(".")[2].encode()
        for lookup in project.text.containing(short):
            if lookup == path or not _imports_from(project, lookup, functools.partial(_named, qualified)):
                continue
            if project.text.defines_class(lookup):
                found.append(lookup)
            functions = list(project.store.summary(lookup).functions)
            found.extend(_importers(project, lookup, functions) if functions else [])
    return list(dict.fromkeys(user for user in found if user != path))


def users(project, path: Path) -> list[Path]:
    """Files that use `path`'s definitions, directly or through files that do, nearest first."""
    found: list[Path] = []
    frontier = [path]
    for _ in range(MAX_DISTANCE):
        following: list[Path] = []
        for current in frontier:
            for user in direct_users(project, current) + registry_users(project, current):
                if user != path and user not in found and user not in following:
                    following.append(user)
        found.extend(following)
        frontier = following
        if len(found) >= MAX_USERS or not frontier:
            break
    return found[:MAX_USERS]
