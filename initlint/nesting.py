"""How deeply a source nests, measured before LibCST sees it.

LibCST's native parser recurses once per nesting level and takes time that grows with the
square (brackets: worse) of the depth; past a few thousand levels it overflows the C stack
and kills the process, which no `try` can catch. So the engine measures the nesting with one
regular-expression pass (about 3% of a parse) and refuses a file beyond the limits below
with a one-line INI901 instead of parsing it. Measured on this machine (LibCST 1.9): 100
nested calls parse in 0.3 s, 400 in 3.6 s; a 1,000-term sum in 0.14 s, 10,000 terms crash.

The measure is an upper bound of the syntax tree's depth, not the depth itself: every
operator, dot, keyword operator or string in one element of a bracket (between commas) may
open one more level, and every open bracket opens one. Flat data (long lists, dicts, tables)
stays shallow because commas reset the count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: CPython itself refuses more than 200 nested brackets; real code stays below 20.
MAX_BRACKET_DEPTH = 100
#: Operator chains (`a + b + ...`, `x.a.b...`, `not not ...`) nest one level per operator.
MAX_EXPRESSION_DEPTH = 1000
#: Deep statements cost parse time roughly with the square of their depth: a statement at a
#: limit costs 1, one at half of it 1/4 (about 0.1-0.3 s of parsing at 1). Statements under a
#: quarter of the limits are free, so ordinary code never adds up.
MAX_DEEP_STATEMENT_COST = 12.0
_FREE_RATIO = 0.25

_STRING_BODY = (
    r"'''[^\\]*?(?:\\.[^\\]*?)*?(?:'''|\Z)"  # unterminated triple quotes run to the end,
    r'|"""[^\\]*?(?:\\.[^\\]*?)*?(?:"""|\Z)'  # as in Python's tokenizer (no re-scanning)
    r"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'"
    r'|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"'
)
_TOKENS = re.compile(
    r"(?P<comment>\#[^\r\n]*)"
    rf"|(?P<string>[rRbBuUfF]{{0,2}}(?:{_STRING_BODY}))"
    # Numbers first, so that the dot of `1.0` and the sign of `1e-5` are not operators.
    r"|(?P<number>\b\d[\d_]*\.[\d_]*(?:[eE][-+]?\d[\d_]*)?|\.\d[\d_]*(?:[eE][-+]?\d[\d_]*)?)"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<comma>,)"
    r"|(?P<continuation>\\\r?\n)"
    r"|(?P<end>\r\n|[\r\n;])"
    r"|(?P<chain>\*\*|//|<<|>>|[-+*/%@&|^~.]|\b(?:not|and|or|if|else|lambda|await)\b)"
)
_CHAIN, _STRING, _OPEN, _CLOSE, _COMMA, _END = (
    _TOKENS.groupindex[name] for name in ("chain", "string", "open", "close", "comma", "end")
)


@dataclass(frozen=True)
class Nesting:
    bracket_depth: int
    expression_depth: int
    #: Where the deepest statement (by its ratio to the limits) starts in the source.
    deepest_at: int
    deep_statement_cost: float


def measure(source: str) -> Nesting:
    # One counter per open bracket: how many levels the current element (since the last
    # comma) has opened so far; `enclosing` is the sum over the brackets around it.
    levels = [0]
    enclosing = 0
    worst_brackets = worst_expression = 0
    worst_ratio = 0.0
    deepest_at = 0
    statement_ratio = 0.0
    statement_start = 0
    cost = 0.0

    for match in _TOKENS.finditer(source):
        kind = match.lastindex
        if kind == _CHAIN or kind == _STRING or kind == _OPEN:
            levels[-1] += 1
            depth = len(levels) + enclosing + levels[-1]
            if kind == _OPEN:
                enclosing += levels[-1]
                levels.append(0)
            brackets = len(levels) - 1
            worst_brackets = max(worst_brackets, brackets)
            worst_expression = max(worst_expression, depth)
            ratio = max(brackets / MAX_BRACKET_DEPTH, depth / MAX_EXPRESSION_DEPTH)
            if ratio > statement_ratio:
                statement_ratio = ratio
                if ratio > worst_ratio:
                    worst_ratio, deepest_at = ratio, statement_start
        elif kind == _CLOSE:
            if len(levels) > 1:
                levels.pop()
                enclosing -= levels[-1]
        elif kind == _COMMA:
            levels[-1] = 0
        elif kind == _END and len(levels) == 1:
            if statement_ratio > _FREE_RATIO:
                cost += statement_ratio**2
            levels[0] = 0
            statement_ratio = 0.0
            statement_start = match.end()
    if statement_ratio > _FREE_RATIO:
        cost += statement_ratio**2
    return Nesting(worst_brackets, worst_expression, deepest_at, cost)


def nesting_problem(source: str) -> tuple[str, int] | None:
    """Why the source is too deep to parse within bounds, and the line; None when it is not."""
    nesting = measure(source)
    line = source.count("\n", 0, nesting.deepest_at) + 1
    if nesting.bracket_depth > MAX_BRACKET_DEPTH:
        return f"brackets nested {nesting.bracket_depth} levels deep (initlint parses at most {MAX_BRACKET_DEPTH})", line
    if nesting.expression_depth > MAX_EXPRESSION_DEPTH:
        return (
            f"an expression nested about {nesting.expression_depth} levels deep "
            f"(initlint parses at most {MAX_EXPRESSION_DEPTH})",
            line,
        )
    if nesting.deep_statement_cost > MAX_DEEP_STATEMENT_COST:
        return "too many deeply nested statements to parse in bounded time", line
    return None
