"""Where each module of a model was created: the position a runtime finding is reported at.

Static rules report a residual writer at the statement that creates its layer
(`self.c_proj = nn.Linear(...)`); a runtime finding about the same writer must land on the
same file, line and column, whatever file the factory lives in. While the model is built,
`nn.Module.__init__` is wrapped: the first frame outside the module's own constructors is the
creation expression, and the statement around it gives the line and column. The frames above
it are kept too (`Block(config)` in the model file that builds the block whose layer this is):
when the layer's own file is not among the checked ones, the finding goes to the innermost
construction in a checked file, as the static rules place it.
"""

from __future__ import annotations

import ast
import os
import sys
from collections import Counter
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator

from torch import nn

#: Files of torch itself are never a creation site a user can act on (nn.MultiheadAttention
#: creates its out_proj there): such modules fall back to their parent's site.
_TORCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(nn.__file__)))
#: initlint's own frames (the pipeline calling the factory) are no construction a user wrote.
_INITLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIR = os.path.dirname(os.path.abspath(os.__file__))
Site = tuple[str, int, int]  # absolute path, 1-based line, 1-based column
#: A module's creation site, then the construction sites of the frames above it, innermost first.
Sites = tuple[Site, ...]
#: Frames above the creation site kept per module: a model's constructors nest a few deep.
_OUTER_FRAMES = 16


class Created(dict[int, Sites]):
    """The creation sites of the modules built, keyed by `id(module)`; `calls` holds the very
    calls that created each, the creation first and the calls above it (file, line, column of
    each expression): the blocks one loop or comprehension builds share them, the layers written
    one by one (or made by one helper called twice) do not."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[int, tuple[Site, ...]] = {}


@contextmanager
def recording() -> Iterator[Created]:
    """Record the creation sites of every module built inside, keyed by `id(module)`."""
    sites = Created()
    original = nn.Module.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if id(self) not in sites:
            frame = _creation_frame(self, sys._getframe(1))
            sites[id(self)] = _sites_of(frame)
            sites.calls[id(self)] = _calls_above(frame)

    nn.Module.__init__ = init
    try:
        yield sites
    finally:
        nn.Module.__init__ = original


def _creation_frame(module: nn.Module, frame):
    """The frame that called the module's class: above the constructors of this very module
    (its class and its bases' __init__)."""
    while frame is not None and frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is module:
        frame = frame.f_back
    return frame


def _calls_above(frame) -> tuple[Site, ...]:
    """The exact call positions of `frame` and the frames above it (a bounded number)."""
    found: list[Site] = []
    while frame is not None and len(found) <= _OUTER_FRAMES:
        found.append((frame.f_code.co_filename, *_call_position(frame)))
        frame = frame.f_back
    return tuple(found)


def _sites_of(frame) -> Sites:
    """The module's creation site (empty when torch or initlint created it), then the sites of
    the user-code frames above it."""
    if frame is None or _code_file(frame.f_code.co_filename) is None:
        return ()
    found: list[Site] = []
    while frame is not None and len(found) <= _OUTER_FRAMES:
        path = _code_file(frame.f_code.co_filename)
        # Above the creation, the standard library (runpy, functools) builds nothing a user wrote.
        if path is not None and (not found or not _in_stdlib(path)):
            line, column = _call_position(frame)
            site = (path, *statement_start(path, line, column))
            if site not in found:
                found.append(site)
        frame = frame.f_back
    return tuple(found)


def _in_stdlib(path: str) -> bool:
    """The standard library's own files (site-packages can sit inside its folder: not those)."""
    inside = path[len(_STDLIB_DIR) :].split(os.sep) if path.startswith(_STDLIB_DIR + os.sep) else []
    return bool(inside) and not {"site-packages", "dist-packages"} & set(inside)


@lru_cache(maxsize=1024)
def _code_file(filename: str) -> str | None:
    """The absolute path of a code object's file, unless it is torch's or initlint's own or no
    file at all (asked for every frame of every module built: cached)."""
    path = os.path.abspath(filename)
    if path.startswith((_TORCH_DIR + os.sep, _INITLINT_DIR + os.sep)) or not os.path.isfile(path):
        return None
    return path


def _call_position(frame) -> tuple[int, int]:
    positions = _code_positions(frame.f_code)
    index = frame.f_lasti // 2
    if 0 <= index < len(positions):
        line, _, column, _ = positions[index]
        if line is not None and column is not None:
            return line, column
    return frame.f_lineno, 0


@lru_cache(maxsize=256)
def _code_positions(code) -> list:
    return list(code.co_positions())


@lru_cache(maxsize=4096)
def statement_start(path: str, line: int, column: int) -> tuple[int, int]:
    """The innermost statement around (line, 0-based column), as (line, 1-based column)."""
    best = (line, column + 1)
    for start, start_col, end, end_col in _statements(path):
        if (start, start_col) <= (line, column) and (line, column) <= (end, end_col):
            best = (start, start_col + 1)  # statements are listed outermost first
    return best


@lru_cache(maxsize=64)
def _statements(path: str) -> tuple[tuple[int, int, int, int], ...]:
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return ()
    found = [
        (node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or 0)
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
    ]
    return tuple(sorted(found, key=lambda span: (span[0], span[1], -span[2], -span[3])))


def module_sites(model: nn.Module, sites: dict[int, Sites]) -> dict[str, Sites]:
    """Module name -> its creation sites; a module without one (made inside torch) gets its
    parent's."""
    result: dict[str, Sites] = {}
    for name, module in model.named_modules(remove_duplicate=False):
        found = sites.get(id(module), ())
        if not found and name:
            found = result.get(name.rpartition(".")[0], ())
        if found:
            result[name] = found
    return result


def copies(model: nn.Module, created: Created | None) -> set[str]:
    """The names of the modules a container holds beside others made by the same call: the
    blocks of a stack (`nn.ModuleList([Block(c) for _ in range(n)])`), not the layers of an
    `nn.Sequential` written out. A module no constructor made (a `copy.deepcopy` clone), or
    one built where nothing was recorded, is a copy of the siblings of its class and shapes."""
    found: set[str] = set()
    calls = created.calls if created is not None else {}
    for name, container in model.named_modules():
        if not isinstance(container, (nn.ModuleList, nn.Sequential)):
            continue
        children = list(container.named_children())
        keys = [calls.get(id(child)) or _structure(child) for _, child in children]
        counts = Counter(keys)
        found.update(f"{name}.{child}" if name else child for (child, _), key in zip(children, keys) if counts[key] > 1)
    return found


def _structure(module: nn.Module) -> tuple:
    return (type(module), tuple((name, tuple(p.shape)) for name, p in module.named_parameters()))


def reported_site(found: Sites, checked: tuple[str, ...]) -> Site | None:
    """Where a finding about the module goes: its creation site when that file is checked (or
    nothing says which files are), else the innermost construction in a checked file, else
    its creation site."""
    if not found:
        return None
    if not checked or found[0][0] in checked:
        return found[0]
    return next((site for site in found if site[0] in checked), found[0])
