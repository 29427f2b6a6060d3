"""Where each module of a model was created: the position a runtime finding is reported at.

Static rules report a residual writer at the statement that creates its layer
(`self.c_proj = nn.Linear(...)`); a runtime finding about the same writer must land on the
same file, line and column, whatever file the factory lives in. While the model is built,
`nn.Module.__init__` is wrapped: the first frame outside the module's own constructors is the
creation expression, and the statement around it gives the line and column.
"""

from __future__ import annotations

import ast
import os
import sys
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator

from torch import nn

#: Files of torch itself are never a creation site a user can act on (nn.MultiheadAttention
#: creates its out_proj there): such modules fall back to their parent's site.
_TORCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(nn.__file__)))
Site = tuple[str, int, int]  # absolute path, 1-based line, 1-based column


@contextmanager
def recording() -> Iterator[dict[int, Site | None]]:
    """Record the creation site of every module built inside, keyed by `id(module)`."""
    sites: dict[int, Site | None] = {}
    original = nn.Module.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if id(self) not in sites:
            sites[id(self)] = _site_of(self, sys._getframe(1))

    nn.Module.__init__ = init
    try:
        yield sites
    finally:
        nn.Module.__init__ = original


def _site_of(module: nn.Module, frame) -> Site | None:
    # Skip the constructors of this very module (its class and its bases' __init__).
    while frame is not None and frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is module:
        frame = frame.f_back
    if frame is None:
        return None
    path = os.path.abspath(frame.f_code.co_filename)
    if path.startswith(_TORCH_DIR + os.sep) or not os.path.isfile(path):
        return None
    line, column = _call_position(frame)
    return (path, *statement_start(path, line, column))


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


def module_sites(model: nn.Module, sites: dict[int, Site | None]) -> dict[str, Site]:
    """Module name -> its creation site; a module without one (made inside torch) gets its
    parent's."""
    result: dict[str, Site] = {}
    for name, module in model.named_modules(remove_duplicate=False):
        site = sites.get(id(module))
        if site is None and name:
            parent = name.rpartition(".")[0]
            site = result.get(parent)
        if site is not None:
            result[name] = site
    return result
