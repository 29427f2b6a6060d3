"""Which checked files only hold the building blocks of the models other checked files define.

`initlint check pkg/ --runtime` builds the models of each file in a child process. A file that
defines layers and blocks (`blocks.py`: `Block(config)`) has no model of its own: the model
that stacks its blocks lives in `model.py`, which imports them, and the runtime check of
`model.py` builds and measures them there. Building `blocks.py` on its own could only fail
(`Block` needs the config the model hands it), once per such file. So a file is skipped when
every root module class it defines (a class with a `forward` that no other class of the same
file refers to) is referred to from a module class of another checked file, through an import.

Read from the project's shared parses and its name resolution (`initlint.project`), which the
static pass has already filled for these files: the parent process never imports the user's
code. It errs towards building: a name that does not resolve to a class of the project (a star
import of a library, a registry looked up by string) leaves the file a target.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from initlint.config import Settings

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from initlint.project import Project
    from initlint.project.layout import Location

#: Module-level functions that are how a file means its model to be built (they often call the
#: init entry point the constructor leaves out).
FACTORY_NAMES = ("build_model", "create_model", "get_model", "make_model")

#: A class of the project: (the real path of its file, its name).
_ClassKey = tuple[Path, str]


@dataclass
class _ModelFile:
    path: str
    roots: list[_ClassKey] = field(default_factory=list)
    has_factory: bool = False
    #: the classes of the project its module classes refer to in their bodies
    refers_to: set[_ClassKey] = field(default_factory=set)


def building_block_files(files: Sequence[str], settings: Settings | None = None) -> dict[str, list[str]]:
    """path -> the other checked files whose module classes build its root classes, for every
    file of `files` that defines no model of its own. Never every file: something is built."""
    read = [found for found in (_read(path, settings or Settings()) for path in files) if found is not None]
    skipped: dict[str, list[str]] = {}
    for candidate in read:
        if candidate.has_factory or not candidate.roots:
            continue
        builders = _builders(candidate, [other for other in read if other is not candidate])
        if builders is not None:
            skipped[candidate.path] = builders
    return {} if len(skipped) == len(read) else skipped


def _builders(candidate: _ModelFile, others: list[_ModelFile]) -> list[str] | None:
    """The files that build every root class of `candidate`, or None when one is built by none."""
    builders: list[str] = []
    for root in candidate.roots:
        using = [other.path for other in others if root in other.refers_to]
        if not using:
            return None
        builders.extend(path for path in using if path not in builders)
    return builders


def _read(path: str, settings: Settings) -> _ModelFile | None:
    """A checked file's root module classes and what its module classes build, from the parse
    and index the static pass shares (the same project, whatever `project-analysis` says);
    None for a file that cannot be parsed."""
    from initlint.engine import project_cache_folder
    from initlint.project import project_for

    real = Path(os.path.realpath(path))
    try:
        project = project_for(path, project_cache_folder(settings))
        parsed = project.parsed_file(real)
    except (OSError, ValueError):
        return None
    if isinstance(parsed, str):
        return None
    index = parsed.index
    found = _ModelFile(path, has_factory=any(name in index.functions for name in FACTORY_NAMES))
    classes = {name: info for name, info in index.classes.items() if "forward" in info.methods}
    # (A class its own file extends or builds is no root: bases count here.)
    used_here = {
        name for info in classes.values() for name in _referred([info.node]) if name in classes and name != info.name
    }
    found.roots = [(real, name) for name in classes if name not in used_here]
    location = project.layout.location_of(real)
    if location is None:
        return found
    own = index.classes.keys() | index.functions.keys()
    stars = bool(project.store.summary(real).star_imports)
    for info in classes.values():
        # The body only: a base class is extended, not built (`class GPT(BaseGPT)`).
        for dotted in _referred(info.node.body.body):
            head = dotted.partition(".")[0]
            # (A name bound nowhere in the file may come from a star import.)
            if head in index.imports or stars and head not in own:
                found.refers_to.update(_project_class(project, location, dotted))
    return found


def _referred(nodes: Sequence[cst.CSTNode]) -> Iterator[str]:
    """Every name read and attribute chain on one (`Block`, `blocks.Block`, `pkg.blocks.Block`)
    in `nodes`; the names a statement only declares (a definition's, a parameter's, a keyword's,
    an attribute's own) are none."""
    import libcst as cst

    from initlint.analysis.index import dotted_name
    from initlint.analysis.positions import descendants

    declared: set[int] = set()
    for node in (inner for outer in nodes for inner in descendants(outer)):
        # (A parent comes before its children: its declared names are set aside in time.)
        if isinstance(node, cst.Attribute):
            declared.add(id(node.attr))
        elif isinstance(node, (cst.ClassDef, cst.FunctionDef, cst.Param)):
            declared.add(id(node.name))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            declared.add(id(node.keyword))
        if isinstance(node, (cst.Name, cst.Attribute)) and id(node) not in declared:
            dotted = dotted_name(node)
            if dotted is not None:
                yield dotted


def _project_class(project: Project, location: Location, dotted: str) -> Iterator[_ClassKey]:
    """The class of the project `dotted` names where `location` reads it, if it names one (no
    file is parsed for it: the summaries say)."""
    from initlint.project import CLASS

    symbol = project.resolve(location, f"{location.name}.{dotted}")
    if symbol.kind == CLASS and symbol.path is not None and symbol.name is not None and not symbol.attribute:
        yield Path(os.path.realpath(symbol.path)), symbol.name
