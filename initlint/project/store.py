"""Each project file read, parsed and indexed at most once per run, keyed by its content hash;
its summary also kept on disk between runs (`cache.py`).

A summary is what resolution and the caller search need without a syntax tree: the names a
module defines (classes with their bases and methods, functions, constants), what it imports,
its star imports, and which init entry points it mentions as attributes. A file that cannot be
read or parsed gets a summary carrying only the reason: a broken sibling resolves to "unknown".
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import libcst as cst

from initlint.analysis.index import ModuleIndex, build_index, dotted_name
from initlint.analysis.positions import descendants, statement_parts
from initlint.analysis.usage import NameUses
from initlint.errors import UnparseableSource
from initlint.parsing import decode, parse
from initlint.project.cache import DiskCache
from initlint.project.layout import read_regular
from initlint.sourcetext import one_line

#: Methods that initialise a model when someone calls them; the summary notes which a file uses.
ENTRY_POINTS = (
    "_init_weights",
    "init_weights",
    "initialize_weights",
    "reset_parameters",
    "_reset_parameters",
    "init_parameters",
)
#: Bump when the summary's content or meaning changes: older disk entries are then ignored.
SUMMARY_VERSION = 3


@dataclass
class Parsed:
    """One file's syntax tree and index: what the interpreter reads."""

    source: str
    module: cst.Module
    index: ModuleIndex
    _uses: NameUses | None = field(default=None, init=False, repr=False, compare=False)
    _statements: dict[int, cst.CSTNode] | None = field(default=None, init=False, repr=False, compare=False)
    _nodes: dict[int, cst.CSTNode] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def uses(self) -> NameUses:
        """The names its code uses, read with `ast` once for the run, whichever file's analysis
        or caller search asks."""
        if self._uses is None:
            self._uses = NameUses(self.module, self.source)
        return self._uses

    def top_statement(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The top-level statement of this file that holds `node` (the very object), or None.
        The file's statements (the usual question), or all its nodes, are mapped on the first
        question, once for the run whichever file asks."""
        if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
            if self._statements is None:
                self._statements = _top_statements(self.module, statement_parts)
            return self._statements.get(id(node))
        if self._nodes is None:
            if not _tokens_in(node, self.source):
                return None  # a word of it is not in this file's text: no node of this tree
            self._nodes = _top_statements(self.module, descendants)
        return self._nodes.get(id(node))


@dataclass(frozen=True)
class Summary:
    imports: dict[str, str] = field(default_factory=dict)
    #: class name -> (qualified bases as the index resolves them, method names)
    classes: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    functions: tuple[str, ...] = ()
    #: the index's constants, and names bound by annotated or unpacking assignments
    constants: tuple[str, ...] = ()
    #: `from .model import *` as ".model", `from pkg.x import *` as "pkg.x"
    star_imports: tuple[str, ...] = ()
    entry_refs: tuple[str, ...] = ()
    #: why the file could not be read or parsed; everything else is empty then
    error: str | None = None

    def to_json(self) -> dict:
        return {
            "version": SUMMARY_VERSION,
            "imports": self.imports,
            "classes": {name: [list(bases), list(methods)] for name, (bases, methods) in self.classes.items()},
            "functions": list(self.functions),
            "constants": list(self.constants),
            "star_imports": list(self.star_imports),
            "entry_refs": list(self.entry_refs),
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data) -> Summary | None:
        """None for anything that is not a summary of this version (a corrupt or older entry)."""
        try:
            if data["version"] != SUMMARY_VERSION:
                return None
            names = {
                key: tuple(map(str, data[key])) for key in ("functions", "constants", "star_imports", "entry_refs")
            }
            summary = cls(
                {str(k): str(v) for k, v in data["imports"].items()},
                {str(k): (tuple(map(str, b)), tuple(map(str, m))) for k, (b, m) in data["classes"].items()},
                names["functions"],
                names["constants"],
                names["star_imports"],
                names["entry_refs"],
                error=None if data["error"] is None else str(data["error"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        return summary


#: Nodes that keep a token's text as the source writes it (a node of a file is made of its text).
_TOKENS = (cst.Name, cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.FormattedStringText)
#: How many of a node's tokens `_tokens_in` looks for (a cheap question however big the node).
_TOKENS_CHECKED = 16


def _tokens_in(node: cst.CSTNode, source: str) -> bool:
    """False only where `node` cannot belong to the tree parsed from `source`: the text of one
    of its tokens is not in it. The question of which sibling holds an expression (asked of
    each linked file in turn) then maps every node of only the files that may hold it."""
    tokens = (inner.value for inner in descendants(node) if isinstance(inner, _TOKENS))
    return all(token in source for _, token in zip(range(_TOKENS_CHECKED), tokens))


def _top_statements(module: cst.Module, walk: Callable[[cst.CSTNode], Iterator[cst.CSTNode]]) -> dict[int, cst.CSTNode]:
    return {id(inner): statement for statement in module.body for inner in walk(statement)}


def _top_level_statements(body):
    """Small statements at the top level and inside top-level `if`/`try`, as the index reads them."""
    pending = list(body)
    while pending:
        stmt = pending.pop(0)
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.If, cst.Try)):
            pending.extend(stmt.body.body)
            pending.extend(
                stmt.orelse.body.body if isinstance(stmt.orelse, cst.Else) else [stmt.orelse] if stmt.orelse else []
            )
            if isinstance(stmt, cst.Try):
                for handler in stmt.handlers:
                    pending.extend(handler.body.body)


def _bound_names(target: cst.BaseExpression):
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_names(element.value)


def _beyond_the_index(body) -> tuple[list[str], list[str]]:
    """What the index does not record: star imports (`from .layers import *` as ".layers"), and
    names bound by annotated or unpacking assignments (`Fn: TypeAlias = ...`, `a, b = f()`)."""
    stars: list[str] = []
    names: list[str] = []
    for small in _top_level_statements(body):
        if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
            module = dotted_name(small.module) if small.module is not None else ""
            stars.append("." * len(small.relative) + (module or ""))
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            names.extend(_bound_names(small.target))
        elif isinstance(small, cst.Assign):
            names.extend(
                name
                for target in small.targets
                if not isinstance(target.target, cst.Name)
                for name in _bound_names(target.target)
            )
    return stars, names


#: `.init_weights` (an attribute), not `def init_weights`. A regular expression instead of a tree
#: walk: the walk cost a third of a parse. A hit in a comment or a string only makes the caller
#: search parse one file more, never miss one.
_ENTRY_REF = re.compile(r"\.\s*(" + "|".join(ENTRY_POINTS) + r")\b")


def summarise(parsed: Parsed) -> Summary:
    index = parsed.index
    stars, names = _beyond_the_index(parsed.module.body)
    return Summary(
        dict(index.imports),
        {name: (tuple(info.bases), tuple(info.methods)) for name, info in index.classes.items()},
        tuple(index.functions),
        tuple(dict.fromkeys([*index.constants, *names])),
        tuple(stars),
        tuple(sorted(set(_ENTRY_REF.findall(parsed.source)))),
    )


def _parse(data: bytes) -> Parsed | str:
    try:
        source = decode(data)
        module = parse(source)
        return Parsed(source, module, build_index(module))
    except UnparseableSource as error:
        return one_line(error.reason)
    except (SyntaxError, ValueError, LookupError) as error:
        return f"cannot decode: {one_line(str(error))}"
    except (RecursionError, MemoryError):
        return "cannot parse: too large or too deeply nested"


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_mtime_ns, found.st_size


@dataclass
class Counters:
    reads: int = 0
    parses: int = 0
    disk_hits: int = 0


class Store:
    """The per-run cache: path -> content hash -> parse and summary."""

    def __init__(self, disk: DiskCache) -> None:
        self.disk = disk
        self.counters = Counters()
        self._files: dict[Path, tuple[str, bytes] | str] = {}
        self._parsed: dict[str, Parsed | str] = {}
        self._summaries: dict[str, Summary] = {}
        #: each content's `ast` read: the imports for the users' search, the names for the analysis
        self._uses: dict[str, NameUses] = {}
        #: (mtime, size) of each file when it was read: a process that lives on (an editor, a
        #: notebook calling `lint_file`) must not keep a sibling's old text
        self._stamps: dict[Path, tuple[int, int] | None] = {}

    def changed(self) -> bool:
        """Whether a file read in this run has changed on disk since."""
        return any(_stamp(path) != stamp for path, stamp in self._stamps.items())

    def read(self, path: Path) -> tuple[str, bytes] | str:
        """(sha256, bytes) of a file, or why it was not read."""
        found = self._files.get(path)
        if found is None:
            self.counters.reads += 1
            self._stamps[path] = _stamp(path)
            data = read_regular(path)
            found = self._files[path] = (hashlib.sha256(data).hexdigest(), data) if isinstance(data, bytes) else data
        return found

    def parsed(self, path: Path) -> Parsed | str:
        """The parse and index of a file, or why there is none."""
        found = self.read(path)
        if isinstance(found, str):
            return found
        digest, data = found
        if digest not in self._parsed:
            self.counters.parses += 1
            try:
                self._parsed[digest] = self._with_uses(digest, data, _parse(data))
            except Exception as error:  # a sibling must never break the checked file
                self._parsed[digest] = f"cannot index: {type(error).__name__}"
        return self._parsed[digest]

    def _with_uses(self, digest: str, data: bytes, parsed: Parsed | str) -> Parsed | str:
        """`parsed`, its `ast` read the one this content already has (the users' search may
        have read its imports before anything parsed it)."""
        if isinstance(parsed, Parsed) and parsed._uses is None:
            parsed._uses = self._uses_of(digest, data)
        return parsed

    def _uses_of(self, digest: str, data: bytes) -> NameUses:
        found = self._uses.get(digest)
        if found is None:
            parsed = self._parsed.get(digest)
            found = self._uses[digest] = NameUses(None, parsed.source if isinstance(parsed, Parsed) else data)
        return found

    def parsed_paths(self) -> set[Path]:
        """The files whose syntax tree this run built or adopted."""
        return {path for path, found in self._files.items() if not isinstance(found, str) and found[0] in self._parsed}

    def parse_of_text(self, source: str) -> Parsed | None:
        """A parse already made of exactly this text (files are keyed by the hash of their bytes)."""
        found = self._parsed.get(hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest())
        return found if isinstance(found, Parsed) and found.source == source else None

    def adopt(self, path: Path, parsed: Parsed) -> None:
        """Take a parse made elsewhere: `path` then reads as `parsed.source`, parsed once."""
        data = parsed.source.encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(data).hexdigest()
        self._files[path] = (digest, data)
        self._with_uses(digest, data, self._parsed.setdefault(digest, parsed))
        self._with_uses(digest, data, parsed)  # (the caller's, where a parse of the text was kept)

    def summary(self, path: Path) -> Summary:
        found = self.read(path)
        if isinstance(found, str):
            return Summary(error=found)
        digest = found[0]
        summary = self._cached_summary(digest)
        if summary is None:
            summary = self._summaries[digest] = self._summarise(path, digest)
        return summary

    def known_summary(self, path: Path) -> Summary | None:
        """The summary of a file if it costs no parse: this run's or the disk cache's, or one
        read off a parse this run already made."""
        found = self.read(path)
        if isinstance(found, str):
            return Summary(error=found)
        return self.summary(path) if found[0] in self._parsed else self._cached_summary(found[0])

    def _cached_summary(self, digest: str) -> Summary | None:
        summary = self._summaries.get(digest)
        if summary is None and self.disk.enabled:
            summary = Summary.from_json(self.disk.get(digest))
            if summary is not None:
                self.counters.disk_hits += 1
                self._summaries[digest] = summary
        return summary

    def import_texts(self, path: Path) -> tuple[str, ...] | None:
        """Every import of a file, in any block, written as its summary writes imports
        (`.blocks.Block`, `..x`, `pkg.mod`): a superset of the summary's, read with Python's
        `ast`, a tenth of a LibCST parse, and the same read the analysis asks its names of
        (`Parsed.uses`) if the file is checked too. The users' search asks it of the many files
        that merely name a module, to summarise only those whose imports bind one of its names.
        None where `ast` cannot read the file (the summary must then be asked)."""
        found = self.read(path)
        if isinstance(found, str):
            return ()
        digest, data = found
        return self._uses_of(digest, data).import_texts()

    def name_uses(self, path: Path) -> NameUses | None:
        """The `ast` read of a file's names (`Parsed.uses`) without a LibCST parse; None where the
        file cannot be read."""
        found = self.read(path)
        return None if isinstance(found, str) else self._uses_of(*found)

    def _summarise(self, path: Path, digest: str) -> Summary:
        parsed = self.parsed(path)
        try:
            summary = Summary(error=parsed) if isinstance(parsed, str) else summarise(parsed)
        except Exception as error:
            summary = Summary(error=f"cannot summarise: {type(error).__name__}")
        self.disk.put(digest, summary.to_json())
        return summary
