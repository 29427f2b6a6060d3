"""Which files of the project use a file's definitions: where its blocks are stacked.

A file that only defines layers and blocks builds no model by itself; the model that stacks its
blocks lives in another file (`model.py` does `from .blocks import Block`). Checked alone, the
block file is analysed with the models of those files. Cheap by construction: a byte search over
the project's files for the names of the file's modules (classes with a `forward`) and for a
class statement; then, of the files left, the imports that bind one of the file's names,
resolved (read with `ast` first where no summary is at hand: a module's name is a common word,
and a file that only says it is not summarised); and the search stops at `MAX_USERS`.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from pathlib import Path

from typing import Callable, Iterator

from initlint.project.registries import registries_filled
from initlint.project.store import Summary
from initlint.project.symbols import MODULE, Symbol

#: Files that import from another one, followed this many imports away from the checked file.
MAX_DISTANCE = 3
#: At most this many using files are returned (the nearest first): a layer imported all over a
#: large project is analysed with a few of its models, not all of them.
MAX_USERS = 12


def direct_users(project, path: Path) -> Iterator[Path]:
    """The project files (in the project's order) that define a class and import one of the
    modules `path` defines (a class with a `forward`), or `path` itself as a module. Lazily, as
    all the searches here: `users` stops asking once it has its fill."""
    summary = project.store.summary(path)
    # `blocks.Block(...)` after `import pkg.blocks as blocks` names the class too
    names = [name for name, (_, methods) in summary.classes.items() if "forward" in methods]
    if summary.error is not None or not names:
        return
    yield from _importers(project, path, names)
    yield from _relay_users(project, path, names)


def _relay_users(project, path: Path, names: list[str]) -> Iterator[Path]:
    """The files that reach `path`'s modules through a file without classes.

    A package `__init__.py` that maps names to layer classes (`MLPS = {"gelu": GeluMlp}`), or a
    factory module whose functions build them (`def build_ff(config): return SwiGLU(config)`),
    builds no model itself; the block that picks a layer imports the table or the function, which
    are defined there, not in `path`. So the users of such a file are the importers of its tables
    and of its functions that name one of `path`'s modules."""
    location = project.layout.location_of(path)
    module = location.name.rpartition(".")[2] if location is not None else ""
    for relay in _importers(project, path, names, with_classes=False):
        summary = project.store.summary(relay)
        relayed = [name for name in summary.constants if not name.startswith("__")]
        relayed += sorted(_builders(project, relay, [*names, module], summary.functions))
        yield from _importers(project, relay, relayed) if relayed else ()


def _builders(project, relay: Path, names: list[str], functions) -> set[str]:
    """The module-level functions of `relay` that use one of `names` (all of them where `ast`
    cannot read it)."""
    uses = project.store.name_uses(relay)
    found: set[str] = set()
    for name in names:
        using = uses.functions_using(name) if uses is not None else None
        found |= set(functions) if using is None else using & set(functions)
    return found


def _importers(project, path: Path, names: list[str], with_classes: bool = True) -> Iterator[Path]:
    """The project files (in order) that import `path` or one of its `names` and define a class
    (with `with_classes` false: that define none)."""
    location = project.layout.location_of(path)
    if location is None:
        return
    # `from pkg import layers` (to fill a registry) names the module, not its classes
    module = location.name.rpartition(".")[2]
    needles = [name.encode() for name in names] + [module.encode()]
    text = project.text
    naming = {other for needle in needles for other in text.containing(needle)}
    targets = _defined_names(project.store.summary(path)) | {module}
    for other in project.python_files():
        if other == path or other not in naming or text.defines_class(other) != with_classes:
            continue  # a file that names none of them cannot use them
        if any(origin == path for _, origin in _imports_of_names(project, other, targets, path)):
            yield other
        elif "." in location.name and _imports_dotted(project, other, location.name, path):
            yield other


def _imports_dotted(project, importer: Path, dotted: str, path: Path) -> bool:
    """`import pkg.layers`, then `pkg.layers.Attention(...)`: the import binds `pkg`, which is all
    the summary records, so the module's dotted name is looked for in the importer's text (a
    top-level `import` line naming it) and resolved from there."""
    named = _dotted_pattern(dotted)
    # (a line starts `import` and a blank: the name is looked for after them, as on one line)
    if not any(named.search(line, 7) for line in project.text.import_lines(importer)):
        return False
    return _resolved_import(project, importer, dotted)[1] == path


@functools.lru_cache(maxsize=1024)
def _dotted_pattern(dotted: str) -> re.Pattern[bytes]:
    return re.compile(rb"(?<![\w.])" + re.escape(dotted.encode()) + rb"(?![\w])")


def _defined_names(summary: Summary) -> frozenset[str]:
    return frozenset([*summary.classes, *summary.functions, *summary.constants])


def _imports_of_names(project, importer: Path, targets: frozenset[str], path: Path) -> list[tuple[Symbol, Path | None]]:
    """The imports of `importer` that bind one of `targets` (`from .attention import Block`,
    `from pkg import attention`), resolved. Only those can land on `path`, which defines them
    (a name keeps its own through re-exports, short of an alias there).

    A module's name is a common word (every model file says "attention"; a table can be called
    `logger`), so most files that name one import something else. Where no summary is at hand,
    a file's imports are first read with `ast` (a tenth of a LibCST parse; in every block, so
    a superset of the summary's) and resolved: only a file one of which lands on `path` is
    summarised. Resolving them reads the summaries of the few modules they import from, which
    every file shares."""
    if project.layout.location_of(importer) is None:
        return []
    summary = project.store.known_summary(importer)
    if summary is None:
        scanned = project.store.import_texts(importer)
        if scanned is not None and not any(
            _resolved_import(project, importer, text)[1] == path
            for text in scanned
            if text.rpartition(".")[2] in targets
        ):
            return []
        summary = project.store.summary(importer)
    if summary.error is not None:
        return []
    texts = list(summary.imports.values())
    if project.text.imports_in_blocks(importer):
        # A block imports its layers in its constructor (`from .attention import Attention`);
        # imports elsewhere (a test method, a training script's `main`) build no model there.
        uses = project.store.name_uses(importer)
        texts.extend((uses.constructor_import_texts() if uses is not None else None) or ())
    return [
        _resolved_import(project, importer, qualified)
        for qualified in dict.fromkeys(texts)
        if qualified.rpartition(".")[2] in targets
    ]


def _defined_in(symbol) -> Path | None:
    target = symbol.location.path if symbol.kind == MODULE and symbol.location is not None else symbol.path
    return Path(os.path.realpath(target)) if target is not None else None


def _imports_from(project, importer: Path, wanted: Callable[[Symbol], bool]) -> bool:
    summary = project.store.summary(importer)
    if summary.error is not None or project.layout.location_of(importer) is None:
        return False
    return any(wanted(_resolved_import(project, importer, qualified)[0]) for qualified in summary.imports.values())


def _resolved_import(project, importer: Path, qualified: str) -> tuple[Symbol, Path | None]:
    """An import of `importer` resolved, with the file that defines it: once per file and run.
    The users' search asks each file of the frontier's neighbourhood again for every file it
    starts from; resolving the imports each time was most of a whole-project check."""
    known = project.resolved_imports.setdefault(importer, {})
    found = known.get(qualified)
    if found is None:
        symbol = project.resolve(project.layout.location_of(importer), qualified)
        found = known[qualified] = (symbol, _defined_in(symbol))
    return found


def _named(qualified: str, symbol: Symbol) -> bool:
    return symbol.qualified == qualified


def registry_users(project, path: Path) -> Iterator[Path]:
    """The users of a file that registers its layers into a registry of the project.

    Such a file is imported by nobody who builds its layers (often only by a package
    `__init__`, to fill the registry): the model reaches them by looking the registry up, in a
    class of its own or in a builder function that its classes import. So its users are the
    files that import the registry and define a class, and the files that import the functions
    of a file that looks the registry up.
    """
    for qualified in sorted(registries_filled(project, path)):
        short = qualified.rpartition(".")[2].encode()
        for lookup in project.text.containing(short):
            if lookup == path or not _imports_from(project, lookup, functools.partial(_named, qualified)):
                continue
            if project.text.defines_class(lookup):
                yield lookup
            functions = list(project.store.summary(lookup).functions)
            yield from _importers(project, lookup, functions) if functions else ()


def users(project, path: Path) -> list[Path]:
    """Files that use `path`'s definitions, directly or through files that do, nearest first.
    The searches are lazy and stop at `MAX_USERS`: a layer that forty models import is not
    looked up in the other twenty-eight, nor in registries."""
    found: list[Path] = []
    frontier = [path]
    for _ in range(MAX_DISTANCE):
        following: list[Path] = []
        for current in frontier:
            for user in itertools.chain(direct_users(project, current), registry_users(project, current)):
                if user != path and user not in found and user not in following:
                    following.append(user)
                    if len(found) + len(following) >= MAX_USERS:
                        return [*found, *following]
        found.extend(following)
        frontier = following
        if not frontier:
            break
    return found


#: How many files the import search of `imports_class` reads at most.
MAX_IMPORT_SEARCH = 32


def imports_class(project, path: Path, cls: Symbol) -> bool:
    """Whether `path` reaches the class `cls` through its imports, at most `MAX_DISTANCE` files
    away: it imports the class, or a name of a file that does (a builder function, a table
    `str2dec = {"transformer": TransformerDecoder}` in a package's `__init__.py`)."""
    home = _defined_in(cls)
    frontier, seen = [Path(os.path.realpath(path))], set()
    for _ in range(MAX_DISTANCE):
        following: list[Path] = []
        for importer in frontier:
            seen.add(importer)
            summary = project.store.summary(importer)
            if summary.error is not None or project.layout.location_of(importer) is None:
                continue
            for qualified in summary.imports.values():
                symbol, defined = _resolved_import(project, importer, qualified)
                if symbol.qualified == cls.qualified and defined == home:
                    return True
                if defined is not None and defined not in seen and len(seen) + len(following) < MAX_IMPORT_SEARCH:
                    following.append(defined)
        frontier = list(dict.fromkeys(following))
    return False
