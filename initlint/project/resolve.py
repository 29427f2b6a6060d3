"""Names to definitions across a project's files, reading only the modules a name reaches.

Resolution follows Python's import semantics on summaries (`store.py`): a name is looked up in
the module's own definitions and imports, then as a submodule of a package, then through its
star imports; an import is followed to the module it names, so package `__init__.py`
re-exports and chains of them resolve to the file that defines the class. Only when a caller
asks for the definition itself (`resolve_symbol`) is that one file's syntax tree used.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import libcst as cst

from initlint.analysis.index import ModuleIndex
from initlint.project.cache import DiskCache, default_cache_folder
from initlint.project.layout import Layout, Location, find_root
from initlint.project.store import SUMMARY_VERSION, Parsed, Store, Summary
from initlint.project.text import ProjectText
from initlint.project.symbols import CLASS, CONSTANT, EXTERNAL, FUNCTION, MODULE, UNKNOWN, Definition, Symbol, _unknown

#: Re-export chains longer than this are not followed (real ones are two or three deep).
MAX_HOPS = 32
#: Lookups one resolution may make: star imports that all import each other branch at every hop.
MAX_LOOKUPS = 2000
#: `Project(cache_folder=DEFAULT)`: `INITLINT_CACHE_DIR`, else the user cache folder.
DEFAULT = object()


class Project:
    """One project on disk: its layout, its files' parses and summaries, resolution and callers.

    A Project is a snapshot for one run: files are read at most once.
    """

    def __init__(self, root: str | os.PathLike, cache_folder=DEFAULT) -> None:
        self.layout = Layout(Path(root))
        self.root = self.layout.root
        folder = default_cache_folder(self.root) if cache_folder is DEFAULT else cache_folder
        self.store = Store(DiskCache(folder, SUMMARY_VERSION))
        self._locations: dict[tuple[str, Path | None], Location | None] = {}
        #: the files named through `module_name`, by module name (the latest one wins)
        self._named: dict[str, Location] = {}
        self._files: list[Path] | None = None
        self._text: ProjectText | None = None
        #: (module file or folder, name) -> what it resolved to, for names that did resolve
        self._members: dict[tuple, Symbol] = {}
        self._children: dict[tuple, Location | None] = {}
        #: method name -> its call sites in the project (`callers.find_calls`)
        self.call_sites: dict[str | tuple[str, str], list] = {}
        #: (file, method) -> its call sites, whichever class a search was for
        self.file_sites: dict[tuple[Path, str], list] = {}
        #: registry constant -> what the project registers in it (`registries.find_registrations`)
        self.registered: dict[str, list] = {}
        #: file -> its module-level registrations, by receiver as the file writes it
        self.file_registrations: dict[Path, dict[str, list]] = {}
        #: name -> the files that call a `register` method on it (`registries._files_by_receiver`)
        self.register_receivers: dict[bytes, list[Path]] | None = None
        self._lookups = 0
        #: file -> its imports resolved, each with the file defining it (`users._resolved_import`)
        self.resolved_imports: dict[Path, dict[str, tuple]] = {}
        #: file -> the files that use its definitions (`users_of`)
        self._users: dict[Path, list[Path]] = {}
        #: (model, its flags) -> the presets that set them (`presets.find_presets`)
        self.presets: dict[tuple[str, Path | None, frozenset[str]], list] = {}

    @classmethod
    def for_file(cls, path: str | os.PathLike, cache_folder=DEFAULT) -> Project:
        project = cls(find_root(Path(os.path.realpath(path))), cache_folder)
        project.module_name(path)
        return project

    # ------------------------------------------------------------------ modules
    def module_name(self, path: str | os.PathLike) -> str | None:
        """The dotted name of a file of the project (None: outside it, or not importable). Name
        the checked file first: names then resolve as that file sees them (`import model` in
        `examples/gpt/train.py` is `examples/gpt/model.py`, not another example's)."""
        location = self.layout.location_of(Path(path))
        if location is None:
            return None
        self._named[location.name] = location
        return location.name

    def location(self, module: str, first: Path | None = None) -> Location | None:
        """Where a module is, looked up from import folder `first` (default: where it was named)."""
        if first is None and module in self._named:
            return self._named[module]
        key = (module, first)
        if key not in self._locations:
            self._locations[key] = self.layout.locate(module, first)
        return self._locations[key]

    def add_source(self, path: str | os.PathLike, source: str, module: cst.Module, index: ModuleIndex) -> Parsed:
        """Share a parse the caller already made (the checked file), so no one parses it again."""
        parsed = Parsed(source, module, index)
        self.store.adopt(Path(os.path.realpath(path)), parsed)
        return parsed

    def shared_parse(self, path: str | os.PathLike, source: str) -> Parsed | None:
        """The parse of `source` this run already made (another checked file reached `path`), if
        any: the engine takes it instead of parsing the checked file again."""
        found = self.store.parse_of_text(source)
        if found is not None:
            self.store.adopt(Path(os.path.realpath(path)), found)
        return found

    def parsed_file(self, path: str | os.PathLike) -> Parsed | str:
        """The shared parse of a file (the checked one included), or why there is none: a file
        that another checked file already reached is not parsed again."""
        return self.store.parsed(Path(os.path.realpath(path)))

    def parsed(self, module: str) -> Parsed | None:
        location = self.location(module)
        if location is None or location.path is None:
            return None
        found = self.store.parsed(location.path)
        return found if isinstance(found, Parsed) else None

    def summary(self, module: str) -> Summary | None:
        """None for a namespace package or a name outside the project."""
        location = self.location(module)
        return self.store.summary(location.path) if location is not None and location.path is not None else None

    # --------------------------------------------------------------- resolution
    def resolve(self, importer: str | Location | None, qualified: str) -> Symbol:
        """What a qualified name, as the index writes it (`.blocks.Block`, `..x` for `from . import
        x`, `torch.nn.Linear`), refers to when read in module `importer`; no definition loaded."""
        absolute, first = self._made_absolute(self._importer(importer), qualified, _absolute_name)
        if absolute is None:
            return _unknown(qualified, f"relative import beyond the top package of {importer or 'a script'}")
        self._lookups = 0
        return self._resolve_absolute(absolute, frozenset(), first)

    def _made_absolute(self, location: Location | None, text: str, convert) -> tuple[str | None, Path | None]:
        """`text` made absolute in `location`, and the folder to look it up from first. A relative
        import that climbs past the file's package is read again with the file named through the
        namespace folders above it, the only way Python could have imported it."""
        absolute = convert(location, text)
        if absolute is None and location is not None and text.startswith("."):
            # (`lm/models/` without `__init__.py` inside the package `lm/`: `..blocks` is read
            # only from the name that climbs through `lm`.)
            for wider in self.layout.through_namespaces(location):
                absolute = convert(wider, text)
                if absolute is not None:
                    return absolute, wider.base
        return absolute, location.base if location is not None else None

    def _child(self, package: Location, name: str) -> Location | None:
        key = (package.path or package.folder, name)
        if key not in self._children:
            self._children[key] = self.layout.child(package, name)
        return self._children[key]

    def resolve_symbol(self, module: str | Location, name: str) -> Symbol:
        """Look `name` (`Block`, `blocks.Block`, `nn.Linear`) up in `module`'s namespace and load
        its definition: the ClassDef with its ClassInfo, the FunctionDef, or a constant's value."""
        location = self._importer(module)
        if location is None:
            return _unknown(f"{module}.{name}", f"no module {module} in {self.root}")
        self._lookups = 0
        return self.with_definition(self._walk(location, name.split("."), frozenset()))

    def _importer(self, module: str | Location | None) -> Location | None:
        return self.location(module) if isinstance(module, str) else module

    def with_definition(self, symbol: Symbol) -> Symbol:
        if symbol.kind not in (CLASS, FUNCTION, CONSTANT) or symbol.path is None or symbol.definition is not None:
            return symbol
        parsed = self.store.parsed(symbol.path)
        if isinstance(parsed, str):
            return _unknown(symbol.qualified, f"{symbol.path}: {parsed}")
        index, name = parsed.index, symbol.name or ""
        info = index.classes.get(name) if symbol.kind == CLASS else None
        tables: dict[str, dict[str, cst.CSTNode]] = {FUNCTION: dict(index.functions), CONSTANT: dict(index.constants)}
        node = info.node if info is not None else tables.get(symbol.kind, {}).get(name)
        if node is None:  # a name the index does not record (`a, b = f()`): known, without syntax
            return (
                symbol
                if symbol.kind == CONSTANT
                else _unknown(symbol.qualified, f"{symbol.path} no longer defines {symbol.name}")
            )
        return replace(symbol, definition=Definition(node, info, index, parsed))

    def imports_of(self, module: str) -> dict[str, Symbol]:
        """Every name `module` imports, resolved (no definitions loaded)."""
        summary = self.summary(module)
        if summary is None or summary.error is not None:
            return {}
        return {local: self.resolve(module, qualified) for local, qualified in summary.imports.items()}

    def _resolve_absolute(self, dotted: str, seen: frozenset, first: Path | None) -> Symbol:
        """The longest prefix that is a module file is imported as such (`from .override import
        override` in a package means the submodule, whatever the package binds to that name);
        the rest is looked up in its namespace."""
        head, *rest = dotted.split(".")
        location = self.location(head, first)
        if location is None:
            return Symbol(EXTERNAL, dotted)
        while rest:
            child = self._child(location, rest[0])
            if child is None:
                break
            location, rest = child, rest[1:]
        return self._walk(location, rest, seen)

    def _walk(self, location: Location, parts: list[str], seen: frozenset) -> Symbol:
        current = _module_symbol(location)
        for position, name in enumerate(parts):
            if current.kind != MODULE or current.location is None:
                return _extended(current, tuple(parts[position:]))
            current = self._member(current.location, name, seen)
        return current

    def _member(self, location: Location, name: str, seen: frozenset) -> Symbol:
        key = (location.path or location.folder, name)
        found = self._members.get(key)
        if found is None:
            self._lookups += 1
            if key in seen or len(seen) > MAX_HOPS or self._lookups > MAX_LOOKUPS:
                return _unknown(f"{location.name}.{name}", f"import cycle through {location.name}.{name}")
            found = self._lookup(location, name, seen | {key})
            if found.kind != UNKNOWN:  # an unknown may only mean that this path met a cycle
                self._members[key] = found
        return found

    def _lookup(self, location: Location, name: str, seen: frozenset) -> Symbol:
        """`module.name`: a definition, an import followed, a submodule, or a star import."""
        qualified = f"{location.name}.{name}"
        summary = self.store.summary(location.path) if location.path is not None else None
        usable = summary is not None and summary.error is None
        if summary is not None and usable:
            kind = _defined_kind(summary, name)
            if kind is not None:
                return Symbol(kind, qualified, location.name, name, location.path)
            imported = summary.imports.get(name)
            target, first = self._made_absolute(location, imported, _absolute_name) if imported else (qualified, None)
            if target is None:
                return _unknown(qualified, f"relative import beyond the top package in {location.name}")
            if target != qualified:  # else `from . import blocks` in a package: the submodule, below
                return self._resolve_absolute(target, seen, first)
        child = self._child(location, name)
        if child is not None:
            return _module_symbol(child)
        if summary is not None and usable:
            return self._through_stars(location, name, summary, seen)
        if summary is not None:
            return _unknown(qualified, f"{location.path}: {summary.error}")
        return _unknown(qualified, f"{location.name} defines no {name}")

    def _through_stars(self, location: Location, name: str, summary: Summary, seen: frozenset) -> Symbol:
        qualified = f"{location.name}.{name}"
        for star in summary.star_imports:
            target, first = self._made_absolute(location, star, _absolute_module)
            source = self._resolve_absolute(target, seen, first) if target is not None else None
            if source is None or source.kind != MODULE or source.location is None:
                return _unknown(qualified, f"{name} may come from `from {star} import *` in {location.name}")
            found = self._walk(source.location, [name], seen)
            if found.kind != UNKNOWN:
                return found
        return _unknown(qualified, f"{location.name} defines no {name}")

    # ------------------------------------------------------------------ callers
    def python_files(self) -> list[Path]:
        """The project's Python files, bounded (see `callers.project_files`)."""
        if self._files is None:
            from initlint.project.callers import project_files

            self._files = project_files(self.root)
        return self._files

    @property
    def text(self) -> ProjectText:
        """The bytes of the project's files, read once for the run's byte searches (`text.py`)."""
        if self._text is None:
            self._text = ProjectText(self.python_files())
        return self._text

    def users_of(self, path: str | os.PathLike) -> list[Path]:
        """Files of the project that use `path`'s definitions, directly or through files that
        do, nearest first (bounded; see `users.users`); searched once per file and run."""
        real = Path(os.path.realpath(path))
        found = self._users.get(real)
        if found is None:
            from initlint.project.users import users

            found = self._users[real] = users(self, real)
        return found

    def find_calls(self, method: str, cls: Symbol | None = None, mentioning: str | None = None) -> list:
        """Call sites of `method` in the project; see `callers.find_calls`."""
        from initlint.project.callers import find_calls

        return find_calls(self, method, cls, mentioning)

    def find_parameter_inits(self, cls: Symbol) -> list:
        """Loops of the project that init every parameter of a model not built from another class
        than `cls`, in files whose imports reach `cls`; see `callers.find_parameter_inits`."""
        from initlint.project.callers import find_parameter_inits, of_class
        from initlint.project.users import imports_class

        return [
            found
            for found in find_parameter_inits(self)
            if of_class(found.site, cls) and imports_class(self, found.site.path, cls)
        ]

    def find_presets(self, target: Symbol, signature, wanted: frozenset[str]) -> list:
        """The module-level functions that build `target` with literal flags; see `presets.py`."""
        from initlint.project.presets import find_presets

        return find_presets(self, target, signature, wanted)

    def registrations(self, qualified: str) -> list:
        """What the project registers in the registry constant `qualified`; see `registries.py`."""
        from initlint.project.registries import find_registrations

        return find_registrations(self, qualified)

    def has_registrations(self, qualified: str) -> bool:
        """Whether the project registers anything in `qualified` (parses up to the first file that does)."""
        from initlint.project.registries import has_registrations

        return has_registrations(self, qualified)


def _module_symbol(location: Location) -> Symbol:
    return Symbol(MODULE, location.name, location.name, None, location.path, location=location)


def _absolute_module(importer: Location | None, relative: str) -> str | None:
    """`..utils` read in `importer` (`from ..utils import *`) as an absolute module name; None
    beyond the top package (Python raises ImportError there)."""
    rest = relative.lstrip(".")
    level = len(relative) - len(rest)
    if level == 0:
        return relative
    if importer is None:
        return None
    parts = importer.name.split(".")
    package = parts if importer.is_package else parts[:-1]
    if level - 1 >= len(package):
        return None
    return ".".join(package[: len(package) - (level - 1)] + ([rest] if rest else []))


def _absolute_name(importer: Location | None, qualified: str) -> str | None:
    """An index-written name made absolute. The index writes `from . import x` as `..x` (module
    `.` joined to `x` with a dot), so a single name after the dots has one dot too many."""
    rest = qualified.lstrip(".")
    dots = len(qualified) - len(rest)
    if dots == 0:
        return qualified
    if "." not in rest and dots >= 2:
        dots -= 1
    return _absolute_module(importer, "." * dots + rest)


def _defined_kind(summary: Summary, name: str) -> str | None:
    if name in summary.classes:
        return CLASS
    if name in summary.functions:
        return FUNCTION
    if name in summary.constants:
        return CONSTANT
    return None


def _extended(symbol: Symbol, rest: tuple[str, ...]) -> Symbol:
    """`Block.build` past the class `Block`; `torch.nn.Linear` past the external `torch.nn`."""
    if symbol.kind == EXTERNAL:
        return replace(symbol, qualified=".".join((symbol.qualified, *rest)))
    if symbol.kind == UNKNOWN:
        return symbol
    return replace(symbol, attribute=symbol.attribute + rest)


_PROJECTS: dict[tuple, Project] = {}
#: Projects kept per process (a flake8 worker sees files of one project, a monorepo a few).
MAX_PROJECTS = 8


#: The projects the current batch of files (`one_snapshot`) has already checked for changes.
_BATCH: set[tuple] | None = None


@contextlib.contextmanager
def one_snapshot() -> Iterator[None]:
    """Check a batch of files (`lint_files`) against one snapshot of each project: whether the
    files a project read have changed since is asked when the batch first reaches it, not again
    for each file checked (a `stat` of every file read so far, per file: 45,000 on torchtitan).
    A later batch, or a single file checked alone, asks again."""
    global _BATCH
    if _BATCH is not None:  # inside a batch already: that one decides
        yield
        return
    _BATCH = set()
    try:
        yield
    finally:
        _BATCH = None


def project_for(path: str | os.PathLike, cache_folder=DEFAULT) -> Project:
    """The Project holding `path`, shared by every file of it checked in this process."""
    root = find_root(Path(os.path.realpath(path)))
    key = (root, cache_folder if cache_folder is DEFAULT else str(cache_folder))
    project = _PROJECTS.get(key)
    batch = _BATCH
    if project is not None and (batch is None or key not in batch) and project.store.changed():
        del _PROJECTS[key]  # a file it read has changed since: start a new snapshot
        project = None
    if project is None:
        if len(_PROJECTS) >= MAX_PROJECTS:
            del _PROJECTS[next(iter(_PROJECTS))]
        project = _PROJECTS[key] = Project(root, cache_folder)
    if batch is not None:
        batch.add(key)
    project.module_name(path)
    return project
