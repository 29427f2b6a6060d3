"""The bytes of the project's Python files, read once per run, for the byte searches that keep
most files away from the parser.

The caller search (`callers.py`), the users of a block file (`users.py`) and the registries
(`registries.py`) each start with "which files contain this name". Reading every file of the
project for each question cost more than the analysis in a large project (transformers: 2,860
files, read again for each entry point of each root class and each file of the users' frontier).
Here the files are read on the first question and kept for the run (the Project is a snapshot,
as its summaries are); each needle's answer is kept too: every checked file asks for the same
entry points.
"""

from __future__ import annotations

import re
from pathlib import Path

from initlint.project.layout import read_regular

#: A file that defines no class builds no model that could stack another file's blocks.
_DEFINES_CLASS = re.compile(rb"^[ \t]*class[ \t]", re.M)
#: An import statement inside a block (a function, a class, an `if` or `try`).
_INDENTED_IMPORT = re.compile(rb"^[ \t]+(?:from[ \t][^\n]*[ \t])?import[ \t]", re.M)
#: A line that starts with an `import` statement, the line break left out.
_TOP_LEVEL_IMPORT = re.compile(rb"^import[ \t][^\n]*", re.M)


class ProjectText:
    def __init__(self, files: list[Path]) -> None:
        self.files = files
        #: each file's bytes; None where it could not be read (a FIFO, over the size cap, gone)
        self._data: list[bytes | None] | None = None
        self._positions: dict[Path, int] = {}
        self._containing: dict[bytes, tuple[int, ...]] = {}
        self._defines_class: dict[int, bool] = {}
        self._imports_in_blocks: dict[int, bool] = {}
        self._import_lines: dict[int, tuple[bytes, ...]] = {}

    def _all(self) -> list[bytes | None]:
        if self._data is None:
            read = [read_regular(path) for path in self.files]
            self._data = [data if isinstance(data, bytes) else None for data in read]
            self._positions = {path: position for position, path in enumerate(self.files)}
        return self._data

    def data(self, path: Path) -> bytes | None:
        """The bytes of a project file as the run first read them; None if unreadable."""
        everything = self._all()
        position = self._positions.get(path)
        return everything[position] if position is not None else None

    def containing(self, needle: bytes) -> list[Path]:
        """The readable files whose bytes contain `needle`, in the project's file order."""
        found = self._containing.get(needle)
        if found is None:
            found = self._containing[needle] = tuple(
                position for position, data in enumerate(self._all()) if data is not None and needle in data
            )
        return [self.files[position] for position in found]

    def defines_class(self, path: Path) -> bool:
        """Whether a line of the file starts a class statement (a text test: a hit in a string
        only costs one summary more)."""
        return self._matches(path, _DEFINES_CLASS, self._defines_class)

    def imports_in_blocks(self, path: Path) -> bool:
        """Whether an indented line of the file is an import statement (a text test: one in a
        string only costs an `ast` read of the file's imports). Kept per file: the users' search
        asks it of the same files for every file it starts from."""
        return self._matches(path, _INDENTED_IMPORT, self._imports_in_blocks)

    def _matches(self, path: Path, pattern: re.Pattern[bytes], answers: dict[int, bool]) -> bool:
        """Whether `pattern` occurs in the file's text, kept in `answers` per file."""
        self._all()
        position = self._positions.get(path)
        if position is None:
            return False
        found = answers.get(position)
        if found is None:
            data = self.data(path)
            found = answers[position] = data is not None and pattern.search(data) is not None
        return found

    def import_lines(self, path: Path) -> tuple[bytes, ...]:
        """The file's lines that start with a top-level `import` statement (`import a.b, c`), each
        without its line break; read once per file (a regular expression anchored at every line
        start of the file, asked again for each module searched, was a tenth of a whole-project
        check)."""
        self._all()
        position = self._positions.get(path)
        if position is None:
            return ()
        found = self._import_lines.get(position)
        if found is None:
            data = self.data(path) or b""
            found = self._import_lines[position] = tuple(_TOP_LEVEL_IMPORT.findall(data))
        return found
