"""Positions for the few nodes a file reports, without paying for the whole file.

LibCST's PositionProvider generates code for every node of the module (several times
the cost of parsing it), yet a finding needs a handful of positions, inside one or two
methods. So: find the top-level statement holding the node (a walk over dataclass
fields that stops at the first hit), and inside a class the method holding it; run the
PositionProvider on a module made of that one statement; shift the result by where the
statement really starts, which Python's own `ast` (ten times cheaper than LibCST) knows.
Without the source text, or when the two parsers disagree on the statement list, the
whole-module provider is used.
"""

from __future__ import annotations

import ast
from typing import Iterator, Mapping, Sequence, cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it, read from the dataclass fields (LibCST's `children`
    runs a visitor per node: several times slower)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for name in current.__dataclass_fields__:
            value = getattr(current, name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif type(value) in (list, tuple):
                stack.extend(item for item in value if isinstance(item, cst.CSTNode))


#: What a statement can hold statements in, and the fields that hold them: statements never sit
#: inside expressions, so a walk through these reaches every statement of a tree.
_STATEMENT_PARTS = (
    cst.BaseStatement,
    cst.BaseSmallStatement,
    cst.BaseSuite,
    cst.Else,
    cst.Finally,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.MatchCase,
)
_STATEMENT_FIELDS = ("body", "orelse", "handlers", "finalbody", "cases")


def statement_parts(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every statement below it (with the blocks and clauses between), skipping the
    expressions: a sixth of the walk over every node."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for name in _STATEMENT_FIELDS:
            value = getattr(current, name, None)
            if isinstance(value, _STATEMENT_PARTS):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(item for item in value if isinstance(item, _STATEMENT_PARTS))


def _ast_lines(cst_body: Sequence[cst.CSTNode], ast_body: Sequence[ast.stmt]) -> list[int] | None:
    """The line each CST statement starts on; `a = 1; b = 2` is one CST statement, two ast ones."""
    lines: list[int] = []
    position = 0
    for statement in cst_body:
        if position >= len(ast_body):
            return None
        lines.append(ast_body[position].lineno)
        position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return lines if position == len(ast_body) else None


class _Scope:
    """A statement list (module body or class body) whose statements we position one at a time."""

    def __init__(
        self,
        statements: Sequence[cst.CSTNode],
        lines: list[int] | None,
        indent: int,
        first: frozenset[int] = frozenset(),
    ) -> None:
        self.statements = statements
        self.lines = lines
        self.indent = indent
        # Statements likely to hold reported nodes come first.
        hinted = [i for i, s in enumerate(statements) if id(s) in first]
        self.order = hinted + [i for i in range(len(statements)) if id(statements[i]) not in first]
        self.ranges: dict[int, Mapping[cst.CSTNode, CodeRange]] = {}


class LazyPositions:
    def __init__(self, module: cst.Module, source: str | None = None, hints: tuple[cst.CSTNode, ...] = ()) -> None:
        self.module = module
        self.source = source
        self.hints = frozenset(id(node) for node in hints)
        self._top: _Scope | None = None
        self._classes: dict[int, _Scope] = {}
        self._tree: ast.Module | None = None
        self._full: Mapping[cst.CSTNode, CodeRange] | None = None
        #: node id -> (scope, statement index in it), filled as statements are walked.
        self._owner: dict[int, tuple[_Scope, int]] = {}
        self._pending: Iterator[tuple[_Scope, int, cst.CSTNode]] | None = None

    # ---------------------------------------------------------------- scopes
    def _top_scope(self) -> _Scope | None:
        if self._top is None:
            try:
                self._tree = ast.parse(self.source) if self.source is not None else None
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._tree = None
            lines = _ast_lines(self.module.body, self._tree.body) if self._tree is not None else None
            self._top = _Scope(self.module.body, lines, 0, self.hints)
        return self._top if self._top.lines is not None else None

    def _class_scope(self, top: _Scope, index: int) -> _Scope | None:
        statement = top.statements[index]
        if not isinstance(statement, cst.ClassDef) or not isinstance(statement.body, cst.IndentedBlock):
            return None
        if index not in self._classes:
            ast_class = self._tree.body[self._ast_index(top, index)] if self._tree is not None else None
            lines = _ast_lines(statement.body.body, ast_class.body) if isinstance(ast_class, ast.ClassDef) else None
            indent = statement.body.indent if statement.body.indent is not None else self.module.default_indent
            self._classes[index] = _Scope(statement.body.body, lines, len(indent), self.hints)
        scope = self._classes[index]
        return scope if scope.lines is not None else None

    def _ast_index(self, top: _Scope, index: int) -> int:
        return sum(len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1 for s in top.statements[:index])

    def _statements_to_walk(self, top: _Scope) -> Iterator[tuple[_Scope, int, cst.CSTNode]]:
        """Every statement once, class members one by one, likely holders first."""
        for index in top.order:
            inner = self._class_scope(top, index)
            if inner is None:
                yield top, index, top.statements[index]
                continue
            self._owner[id(top.statements[index])] = (top, index)
            for member in inner.order:
                yield inner, member, inner.statements[member]

    def _locate(self, top: _Scope, node: cst.CSTNode) -> tuple[_Scope, int] | None:
        if self._pending is None:
            self._pending = self._statements_to_walk(top)
        while id(node) not in self._owner:
            step = next(self._pending, None)
            if step is None:
                return None
            scope, index, statement = step
            for inner in descendants(statement):
                self._owner[id(inner)] = (scope, index)
        return self._owner[id(node)]

    # -------------------------------------------------------------- lookups
    def _in_scope(self, scope: _Scope, index: int, node: cst.CSTNode, column_shift: int) -> CodeRange | None:
        if index not in scope.ranges:
            statement = scope.statements[index]
            # Scopes hold module or class statements: each is a line or a compound statement.
            alone = cst.Module(
                body=[cast("cst.SimpleStatementLine | cst.BaseCompoundStatement", statement)],
                header=(),
                footer=(),
                default_newline=self.module.default_newline,
                default_indent=self.module.default_indent,
            )
            scope.ranges[index] = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        local = scope.ranges[index]
        found, start = local.get(node), local.get(scope.statements[index])
        if found is None or start is None:
            return None
        assert scope.lines is not None  # scopes without lines are never located into
        shift = scope.lines[index] - start.start.line
        return CodeRange(
            CodePosition(found.start.line + shift, found.start.column + column_shift),
            CodePosition(found.end.line + shift, found.end.column + column_shift),
        )

    def _whole_module(self, node: cst.CSTNode) -> CodeRange | None:
        if self._full is None:
            self._full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._full.get(node)

    def get(self, node: cst.CSTNode, default: CodeRange | None = None) -> CodeRange | None:
        top = self._top_scope()
        located = self._locate(top, node) if top is not None else None
        if located is None:
            found = self._whole_module(node)
            return found if found is not None else default
        scope, index = located
        found = self._in_scope(scope, index, node, scope.indent)
        return found if found is not None else default

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self.get(node)
        if found is None:
            raise KeyError(node)
        return found
