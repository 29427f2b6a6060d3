"""Which files of the project use a file's definitions: where its blocks are stacked.

A file that only defines layers and blocks builds no model by itself; the model that stacks its
blocks lives in another file (`model.py` does `from .blocks import Block`). Checked alone, the
block file is analysed with the models of those files. Cheap by construction: a byte search over
the project's files for the names of the file's modules (classes with a `forward`) and for a
class statement, then the summaries of the few files left (from the disk cache, or a parse the
run shares), whose imports are resolved.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from initlint.project.layout import read_regular
from initlint.project.symbols import MODULE

#: Files that import from another one, followed this many imports away from the checked file.
MAX_DISTANCE = 3
#: At most this many using files are returned (the nearest first): a layer imported all over a
#: large project is analysed with a few of its models, not all of them.
MAX_USERS = 12


#: A file that defines no class builds no model that could stack another file's blocks.
_DEFINES_CLASS = re.compile(rb"^[ \t]*class[ \t]", re.M)


def direct_users(project, path: Path) -> list[Path]:
    """The project files (sorted) that define a class and import one of the modules `path`
    defines (a class with a `forward`), or `path` itself as a module."""
    summary = project.store.summary(path)
    # `blocks.Block(...)` after `import pkg.blocks as blocks` names the class too
    names = [name.encode() for name, (_, methods) in summary.classes.items() if "forward" in methods]
    location = project.layout.location_of(path)
    if summary.error is not None or not names or location is None:
        return []
    # `from pkg import layers` (to fill a registry) names the module, not its classes
    names.append(location.name.rpartition(".")[2].encode())
    found = []
    for other in project.python_files():
        if other == path:
            continue
        data = read_regular(other)  # not kept: a file that names none of them cannot use them
        if isinstance(data, str) or not any(name in data for name in names) or not _DEFINES_CLASS.search(data):
            continue
        if _imports_from(project, other, path):
            found.append(other)
    return found


def _imports_from(project, importer: Path, path: Path) -> bool:
    summary = project.store.summary(importer)
    location = project.layout.location_of(importer)
    if summary.error is not None or location is None:
        return False
    for qualified in summary.imports.values():
        symbol = project.resolve(location, qualified)
        target = symbol.location.path if symbol.kind == MODULE and symbol.location is not None else symbol.path
        if target is not None and Path(os.path.realpath(target)) == path:
            return True
    return False


def users(project, path: Path) -> list[Path]:
    """Files that use `path`'s definitions, directly or through files that do, nearest first."""
    found: list[Path] = []
    frontier = [path]
    for _ in range(MAX_DISTANCE):
        following: list[Path] = []
        for current in frontier:
            for user in direct_users(project, current):
                if user != path and user not in found and user not in following:
                    following.append(user)
        found.extend(following)
        frontier = following
        if len(found) >= MAX_USERS or not frontier:
            break
    return found[:MAX_USERS]
