"""One statement walker for both readers of a function body: the interpreter of `__init__` and
init code (`interp_statements.py`) and the forward reader (`forward_statements.py`).

Both dispatch on the statement type through the same table, so both understand the same Python;
each reader says what the statements it cares about mean (`if` is decided differently by the
two; `match` only the interpreter reads), and loops, `with` and `try` are walked the same way
unless a reader needs more.
`except` handlers are not walked: they are not the path model code takes.
"""

from __future__ import annotations

from typing import Generic, Sequence, TypeVar

import libcst as cst

from initlint.analysis.abstract import Env, FuncRef

State = TypeVar("State")


class StatementWalker(Generic[State]):
    def tick(self) -> None:
        """Counts a step against the interpretation budget."""
        raise NotImplementedError

    def walk_block(self, stmts: Sequence[cst.CSTNode], env: Env, state: State) -> None:
        for stmt in stmts:
            self.tick()
            handler = _STATEMENTS.get(type(stmt))
            if handler is not None:
                getattr(self, handler)(stmt, env, state)
            elif isinstance(stmt, cst.BaseSmallStatement):
                self.on_small(stmt, env, state)

    def on_line(self, line: cst.SimpleStatementLine, env: Env, state: State) -> None:
        for small in line.body:
            self.on_small(small, env, state)

    def on_small(self, small: cst.BaseSmallStatement, env: Env, state: State) -> None:
        raise NotImplementedError

    def on_if(self, stmt: cst.If, env: Env, state: State) -> None:
        raise NotImplementedError

    def on_for(self, stmt: cst.For, env: Env, state: State) -> None:
        self.walk_block(stmt.body.body, env, state)

    def on_while(self, stmt: cst.While, env: Env, state: State) -> None:
        self.walk_block(stmt.body.body, env, state)

    def on_with(self, stmt: cst.With, env: Env, state: State) -> None:
        self.walk_block(stmt.body.body, env, state)

    def on_try(self, stmt: cst.Try, env: Env, state: State) -> None:
        self.walk_block(stmt.body.body, env, state)
        if stmt.finalbody is not None:
            self.walk_block(stmt.finalbody.body.body, env, state)

    def on_match(self, stmt: cst.Match, env: Env, state: State) -> None:
        """`match`: a reader that gives it no meaning passes over it, as over a statement it does
        not know."""

    def on_function_def(self, stmt: cst.FunctionDef, env: Env, state: State) -> None:
        """A nested function (`def _attn(h): ...` in `forward`): nothing runs until it is called,
        then with the names it closes over as they are then."""
        env.names[stmt.name.value] = FuncRef(stmt, closure=env)


#: Statement type -> the method of the walker that gives its meaning (a reader overrides it).
_STATEMENTS: dict[type, str] = {
    cst.SimpleStatementLine: "on_line",
    cst.If: "on_if",
    cst.For: "on_for",
    cst.While: "on_while",
    cst.With: "on_with",
    cst.Try: "on_try",
    cst.Match: "on_match",
    cst.FunctionDef: "on_function_def",
}
