"""The project layer: a checked file's project on disk, read without importing anything.

    project = project_for("src/mypkg/model.py")        # shared by every file of the project
    module = project.module_name("src/mypkg/model.py")  # "mypkg.model"
    block = project.resolve_symbol(module, "Block")     # Symbol(kind="class", path=..., definition=...)
    sites = project.find_calls("init_weights", cls=project.resolve_symbol(module, "GPT"))

`layout.py` finds the root and the module files, `store.py` reads, parses and summarises each
file once per run (keyed by content hash), `cache.py` keeps the summaries on disk between runs,
`resolve.py` follows imports and re-exports, `callers.py` finds who calls an init entry point.
The contract with the interpreter is docs/project-analysis.md.
"""

from __future__ import annotations

from initlint.project.callers import CallSite
from initlint.project.resolve import DEFAULT, Project, one_snapshot, project_for
from initlint.project.symbols import CLASS, CONSTANT, EXTERNAL, FUNCTION, MODULE, UNKNOWN, Definition, Symbol
from initlint.project.store import ENTRY_POINTS, Parsed

__all__ = [
    "CLASS",
    "CONSTANT",
    "DEFAULT",
    "ENTRY_POINTS",
    "EXTERNAL",
    "FUNCTION",
    "MODULE",
    "UNKNOWN",
    "CallSite",
    "Definition",
    "Parsed",
    "Project",
    "Symbol",
    "one_snapshot",
    "project_for",
]
