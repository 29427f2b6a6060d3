"""Where a project, its packages and its modules lie on disk: read from the file system only.

Python finds `mypkg.blocks` by looking for `mypkg/__init__.py` (a regular package), `mypkg.py`
(a module) or a bare `mypkg/` folder (a namespace package) in each folder of `sys.path`. A linter
cannot know the user's `sys.path`, so it rebuilds the likely one from the project's shape: the
folder above the importing file's `__init__.py` chain (where `python -m` or an installed package
would import it from, and where `python train.py` puts the script's folder), `<root>/src` (the
src layout) and the project root. Nothing outside the project root is ever located: those names
are "external".
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: A folder holding one of these is a project root (the nearest one above the checked file wins).
ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
#: Folders pip installs into: code below one belongs to an installed distribution, not a project.
INSTALLED_FOLDERS = ("site-packages", "dist-packages")
#: Larger files are not read: generated tables, vendored bundles, never hand-written model code.
MAX_FILE_BYTES = 2_000_000


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):  # a dangling link, a symlink loop (ELOOP), a NUL in the name
        return None


def is_regular_file(path: Path) -> bool:
    found = _stat(path)
    return found is not None and stat.S_ISREG(found.st_mode)


def is_folder(path: Path) -> bool:
    found = _stat(path)
    return found is not None and stat.S_ISDIR(found.st_mode)


def read_regular(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes | str:
    """The bytes of a regular file under the size cap, or a one-line reason it was not read.

    The file is opened non-blocking and checked on the open descriptor, so a FIFO or a device
    swapped in after a path check can neither block nor flood the run.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as error:
        return f"cannot read: {getattr(error, 'strerror', None) or error}"
    with os.fdopen(descriptor, "rb") as handle:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            return "not a regular file"
        if found.st_size > max_bytes:
            return f"larger than {max_bytes} bytes"
        try:
            data = handle.read(max_bytes + 1)
        except OSError as error:
            return f"cannot read: {error.strerror or error}"
        return data if len(data) <= max_bytes else f"larger than {max_bytes} bytes"


def package_top(path: Path) -> Path:
    """The folder above the `__init__.py` chain holding `path` (its own folder outside a package)."""
    folder = path.parent
    seen = 0
    while is_regular_file(folder / "__init__.py") and folder.parent != folder and seen < 64:
        folder, seen = folder.parent, seen + 1
    return folder


def module_parts(path: Path, top: Path) -> list[str]:
    """The parts of the name `path` is imported by from `top`: `pkg/blocks.py` -> pkg, blocks
    (a package's `__init__` kept: the caller names the package by it or by its folder)."""
    return list(path.relative_to(top).with_suffix("").parts)


def package_module(path: Path) -> tuple[Path, str] | None:
    """(the folder above its `__init__.py` chain, its dotted name from there) for a file inside
    a package, as `python -m` imports it; None for a file outside one, or a name that is no
    identifier."""
    top = package_top(path)
    parts = module_parts(path, top)
    if len(parts) == 1 or not all(part.isidentifier() for part in parts):
        return None
    return top, ".".join(parts)


def installed_root(path: Path) -> Path | None:
    """For a file of an installed distribution, its top-level package folder (its own folder
    for a plain module): `.../site-packages/transformers` for any file of transformers.

    Above it lies every other installed package, and often the user's project holding the venv:
    taking either for the project would index thousands of unrelated files and blur the findings."""
    parts = path.parts
    for index in range(len(parts) - 2, -1, -1):
        if parts[index] in INSTALLED_FOLDERS:
            return Path(*parts[: index + 2]) if index + 2 < len(parts) else path.parent
    # Any folder pip installs into (`pip install --target`, an unpacked wheel) holds the
    # distribution's `*.dist-info` beside its top-level package: looked for up to the project
    # root, through namespace folders too (`esm/model/` without `__init__.py`), so that every
    # file of one package gets the same root.
    for folder in path.parents:
        if _holds_dist_info(folder):
            inner = path.relative_to(folder).parts
            return folder / inner[0] if len(inner) > 1 else None  # a loose module: no package
        if any(_stat(folder / marker) is not None for marker in ROOT_MARKERS):
            return None
    return None


def _holds_dist_info(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.endswith(".dist-info") and entry.is_dir(follow_symlinks=False) for entry in entries)
    except OSError:
        return False


def find_root(path: Path) -> Path:
    """The nearest folder above `path` holding a project marker, else the top of its package;
    for installed code, the installed package itself (see `installed_root`)."""
    installed = installed_root(path)
    if installed is not None:
        return installed
    start = path.parent
    for folder in (start, *start.parents):
        if any(_stat(folder / marker) is not None for marker in ROOT_MARKERS):
            return folder
    return package_top(path)


def _within(path: Path, root: Path) -> bool:
    try:
        return Path(os.path.realpath(path)).is_relative_to(root)
    except (OSError, ValueError):
        return False


@dataclass(frozen=True)
class Location:
    """Where a dotted module name lives: `path` is None for a namespace package (a bare folder)."""

    name: str
    path: Path | None
    #: the package's folder (None for a plain module)
    folder: Path | None
    is_package: bool
    #: the import folder it was found in: where its own absolute imports are looked up first
    base: Path


class Layout:
    """The project root and its import folders; maps module names to files."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        folders = [self.root / "src", self.root]
        if is_regular_file(self.root / "__init__.py") or _holds_dist_info(self.root.parent):
            # the root is a package (an installed one, or an installed namespace package without
            # `__init__.py`): its own imports (`import esm.modules`) are found from the folder
            # above it; `_within` still keeps every file inside the root
            folders.append(self.root.parent)
        self.search_path: list[Path] = [folder for folder in folders if is_folder(folder)]
        #: (path, top) -> its module: a run asks for the same few hundred files thousands of
        #: times, each answer a `realpath` and a walk up the `__init__.py` chain
        self._modules: dict[tuple[Path, Path | None], Location | None] = {}

    def location_of(self, path: Path, top: Path | None = None) -> Location | None:
        """The module a file of the project is: `mypkg.blocks` for `<root>/src/mypkg/blocks.py`
        (named from `top`, by default the folder above its `__init__.py` chain); None outside the
        project or for a file name that is no identifier (`train-v2.py`)."""
        key = (path, top)
        if key not in self._modules:
            self._modules[key] = self._location_of(Path(os.path.realpath(path)), top)
        return self._modules[key]

    def _location_of(self, path: Path, top: Path | None) -> Location | None:
        if not path.is_relative_to(self.root) or path.suffix not in (".py", ".pyi"):
            return None
        top = top or package_top(path)
        parts = module_parts(path, top)
        is_package = bool(parts) and parts[-1] == "__init__"
        if is_package:
            parts.pop()
        if not parts or not all(part.isidentifier() for part in parts):
            return None
        return Location(".".join(parts), path, path.parent if is_package else None, is_package, top)

    def locate(self, name: str, first: Path | None = None) -> Location | None:
        """The file (or namespace folder) for a dotted module name, looked up in `first` (the
        importer's own import folder), then in `<root>/src` and `<root>`; None: not in the project."""
        parts = name.split(".")
        if not all(part.isidentifier() for part in parts):
            return None
        # `first` may lie above the root (a root holding an `__init__.py`): files found through it
        # are still checked to be inside the root.
        folders = [first] if first is not None else []
        if first is not None and first.name == parts[0] and not is_regular_file(first / "__init__.py"):
            # The importer's folder is a namespace package it imports by name (`fla/` of
            # `from fla.layers.attn import Attention` in `fla/models/...`): its parent is on sys.path.
            folders.append(first.parent)
        namespace = None
        for base in folders + [folder for folder in self.search_path if folder != first]:
            found = self._locate_in(base, parts)
            if found is not None and found.path is not None:
                return found
            namespace = namespace or found
        return namespace

    def through_namespaces(self, location: Location) -> list[Location]:
        """The same file named from `<root>/src`, `<root>` or the folder above a root that is
        itself a package, through the folders without `__init__.py` above its package
        (namespace packages): each longer name, in the order of the search path."""
        if location.path is None:
            return []
        wider: list[Location] = []
        for folder in self.search_path:
            if location.base != folder and location.base.is_relative_to(folder):
                found = self.location_of(location.path, folder)
                if found is not None:
                    wider.append(found)
        return wider

    def child(self, package: Location, name: str) -> Location | None:
        """The submodule `name` of a package, in the package's own folder."""
        if not package.is_package or not name.isidentifier():
            return None
        return self._locate_in(package.base, [*package.name.split("."), name])

    def _locate_in(self, base: Path, parts: list[str]) -> Location | None:
        folder = base.joinpath(*parts)
        name = ".".join(parts)
        if is_regular_file(folder / "__init__.py") and _within(folder, self.root):
            return Location(name, folder / "__init__.py", folder, True, base)
        for suffix in (".py", ".pyi"):
            module = folder.with_name(folder.name + suffix)
            if is_regular_file(module) and _within(module, self.root):
                return Location(name, module, None, False, base)
        if is_folder(folder) and _within(folder, self.root):
            return Location(name, None, folder, True, base)
        return None
