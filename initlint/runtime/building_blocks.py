"""Which checked files only hold the building blocks of the models other checked files define.

`initlint check pkg/ --runtime` builds the models of each file in a child process. A file that
defines layers and blocks (`blocks.py`: `Block(config)`) has no model of its own: the model
that stacks its blocks lives in `model.py`, which imports them, and the runtime check of
`model.py` builds and measures them there. Building `blocks.py` on its own could only fail
(`Block` needs the config the model hands it), once per such file. So a file is skipped when
every root module class it defines (a class with a `forward` that no class of the same file
refers to) is referred to from a module class of another checked file, through an import.

Read from the source text only (`ast`): the parent process never imports the user's code. It
errs towards building: a name it cannot follow (a star import, a registry looked up by string)
leaves the file a target.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from initlint.safety import read_regular_file

#: Module-level functions that are how a file means its model to be built (they often call the
#: init entry point the constructor leaves out).
FACTORY_NAMES = ("build_model", "create_model", "get_model", "make_model")


def package_name(path: str) -> tuple[str, str] | None:
    """(package root, dotted module name) when `path` sits inside a package (`__init__.py`s)."""
    folder, stem = os.path.split(os.path.abspath(path))
    parts = [os.path.splitext(stem)[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    if len(parts) == 1 or not all(part.isidentifier() for part in parts):
        return None
    return folder, ".".join(parts)


@dataclass
class _ModelFile:
    path: str
    #: the dotted names other files import it by (its path in its package, else its stem)
    names: tuple[str, ...]
    roots: list[str] = field(default_factory=list)
    has_factory: bool = False
    #: qualified names (`pkg.blocks.Block`) its module classes refer to through its imports
    refers_to: set[str] = field(default_factory=set)


def building_block_files(files: Sequence[str]) -> dict[str, list[str]]:
    """path -> the other checked files whose module classes build its root classes, for every
    file of `files` that defines no model of its own. Never every file: something is built."""
    read = [found for found in (_read(path) for path in files) if found is not None]
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
        wanted = {f"{name}.{root}" for name in candidate.names}
        using = [other.path for other in others if other.refers_to & wanted]
        if not using:
            return None
        builders.extend(path for path in using if path not in builders)
    return builders


def _read(path: str) -> _ModelFile | None:
    try:
        tree = ast.parse(read_regular_file(path).decode("utf-8", "replace"))
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    packaged = package_name(path)
    dotted = packaged[1] if packaged else os.path.splitext(os.path.basename(path))[0]
    # A package's `__init__.py` is imported as the package; its relative imports start from it.
    found = _ModelFile(path, (dotted.removesuffix(".__init__"),))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef) and _has_forward(node)}
    used_here = {name for node in classes.values() for name in _names_in(node) if name in classes}
    found.roots = [name for name in classes if name not in used_here]
    found.has_factory = any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in FACTORY_NAMES for node in tree.body
    )
    imports, stars = _imports(tree, packaged[1] if packaged else None)
    defined = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    for node in classes.values():
        # The body only: a base class is extended, not built (`class GPT(BaseGPT)`).
        for dotted in (name for statement in node.body for name in _dotted_names_in(statement)):
            head, _, rest = dotted.partition(".")
            if head in imports:
                found.refers_to.add(imports[head] + (f".{rest}" if rest else ""))
            elif head not in defined:  # maybe from a star import (`from .layers import *`)
                found.refers_to.update(f"{star}.{dotted}" for star in stars)
    return found


def _has_forward(node: ast.ClassDef) -> bool:
    return any(
        isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "forward" for item in node.body
    )


def _names_in(node: ast.AST) -> Iterator[str]:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            yield inner.id


def _dotted_names_in(node: ast.AST) -> Iterator[str]:
    """Every name and attribute chain on a name (`Block`, `blocks.Block`, `pkg.blocks.Block`)."""
    for inner in ast.walk(node):
        parts: list[str] = []
        while isinstance(inner, ast.Attribute):
            parts.insert(0, inner.attr)
            inner = inner.value
        if isinstance(inner, ast.Name):
            for end in range(len(parts) + 1):
                yield ".".join([inner.id, *parts[:end]])


def _imports(tree: ast.Module, module: str | None) -> tuple[dict[str, str], list[str]]:
    """Local name -> the absolute qualified name it is bound to, for the file's imports; and the
    modules it star-imports."""
    bound: dict[str, str] = {}
    stars: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    bound[head] = head
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module)
            for alias in node.names:
                if source is None:
                    continue
                if alias.name == "*":
                    stars.append(source)
                else:
                    bound[alias.asname or alias.name] = f"{source}.{alias.name}" if source else alias.name
    return bound, stars


def _absolute(node: ast.ImportFrom, module: str | None) -> str | None:
    """The absolute module of `from ... import`; None for a relative import outside a package."""
    if not node.level:
        return node.module or ""
    if module is None:
        return None
    package = module.split(".")[: -node.level]
    if not package:
        return None
    return ".".join(package + ([node.module] if node.module else []))
