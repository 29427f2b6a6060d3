"""How deeply a source nests, measured before LibCST sees it.

LibCST's native parser recurses once per nesting level and takes time that grows faster than
the square of the depth; past a few thousand levels it overflows an 8 MiB C stack and kills
the process, which no `try` can catch. So the engine measures the nesting with one
regular-expression pass (about 6% of a parse) and refuses a file beyond the limits below with a
one-line INI901 instead of parsing it. Measured here (LibCST 1.9, in the engine's 256 MiB
worker thread): a sum of 2,000 terms parses in 1.0 s, 4,000 in 5.3 s, 5,000 in 11 s;
100 nested calls in 0.3 s, 400 in 3.6 s; on the main thread a 10,000-term sum segfaults.

The measure is an upper bound of the syntax tree's depth, not the depth itself. Within one
element of a bracket (commas reset it): every low-precedence operator (`+ - | & ^ << >>`,
`not and or`, `if else`, `lambda`) may open a level, and so may every high-precedence one
(`* / // % @ ** ~ .`, unary signs, `await`, strings, calls and subscripts) since the last
low-precedence operator, so a polynomial `a*x**2 + b*x + c` measures about its number of
terms plus its longest product, as its tree does. Every open bracket opens a level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: CPython itself refuses more than 200 nested brackets; real code stays below 20.
MAX_BRACKET_DEPTH = 100
#: Operator chains nest one level per operator (the deepest real file seen: about 2,200).
MAX_EXPRESSION_DEPTH = 4000
#: The parse time the deep statements of one file may add up to (estimated, see below).
MAX_DEEP_PARSE_SECONDS = 15.0
#: Shallower statements cost a few milliseconds each at most: not counted.
_COUNTED_EXPRESSION_DEPTH = 200
_COUNTED_BRACKET_DEPTH = 20


def deep_parse_seconds(expression_depth: int, bracket_depth: int) -> float:
    """Parse time of one statement that deep, fitted to the measurements above."""
    seconds = 0.0
    if expression_depth > _COUNTED_EXPRESSION_DEPTH:
        seconds += (expression_depth / 2000) ** 2.4
    if bracket_depth > _COUNTED_BRACKET_DEPTH:
        seconds += 0.3 * (bracket_depth / 100) ** 2
    return seconds


_STRING_BODY = (
    r"'''[^\\]*?(?:\\.[^\\]*?)*?(?:'''|\Z)"  # unterminated triple quotes run to the end,
    r'|"""[^\\]*?(?:\\.[^\\]*?)*?(?:"""|\Z)'  # as in Python's tokenizer (no re-scanning)
    r"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'"
    r'|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"'
)
_TOKENS = re.compile(
    # Names first: matching a whole name at once keeps the engine from trying every other
    # alternative at each of its letters (4x faster); keywords are told apart below.
    r"(?P<name>[^\W\d]\w*)"
    r"|(?P<comment>\#[^\r\n]*)"
    rf"|(?P<string>{_STRING_BODY})"  # a prefix (r, b, f, u) is matched as a name before it
    # Numbers before operators, so that the dot of `1.0` and the sign of `1e-5` are not ones.
    r"|(?P<number>\d[\d_]*\.[\d_]*(?:[eE][-+]?\d[\d_]*)?|\.\d[\d_]*(?:[eE][-+]?\d[\d_]*)?)"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<comma>,)"
    r"|(?P<continuation>\\\r?\n)"
    r"|(?P<end>\r\n|[\r\n;])"
    r"|(?P<sign>[-+](?!=))"
    r"|(?P<low><<|>>|[|&^])"
    r"|(?P<high>\*\*|//|[*/%@~.])"
)
_NAME, _STRING, _OPEN, _CLOSE, _COMMA, _END, _SIGN, _LOW, _HIGH = (
    _TOKENS.groupindex[name] for name in ("name", "string", "open", "close", "comma", "end", "sign", "low", "high")
)
_LOW_KEYWORDS = frozenset({"not", "and", "or", "if", "else", "lambda"})
_DEPTH_TOKENS = frozenset({_LOW, _HIGH, _STRING, _OPEN, _CLOSE, _COMMA, _END})
#: A sign after one of these is binary (low precedence); after anything else it is unary.
_OPERAND_END = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_)]}'\"")


@dataclass(frozen=True)
class Nesting:
    bracket_depth: int
    expression_depth: int
    #: Where the deepest statement (by its estimated parse time) starts in the source.
    deepest_at: int
    #: Estimated parse time of the deep statements, added up.
    deep_parse_seconds: float


def _is_binary(source: str, position: int) -> bool:
    position -= 1
    while position >= 0 and source[position] in " \t\\\r\n":
        position -= 1
    return position >= 0 and source[position] in _OPERAND_END


def _operator_kind(source: str, match: re.Match) -> int | None:
    """The token's group, with keywords and signs told apart by precedence; None for what
    cannot change the depth (a plain name, a number, a comment, a continuation)."""
    kind = match.lastindex
    if kind == _NAME:
        name = match.group()
        return _LOW if name in _LOW_KEYWORDS else _HIGH if name == "await" else None
    if kind == _SIGN:
        return _LOW if _is_binary(source, match.start()) else _HIGH
    return kind if kind in _DEPTH_TOKENS else None


def measure(source: str) -> Nesting:
    # Per open bracket: low-precedence operators since the last comma, high-precedence ones
    # since the last low one; `enclosing`: both summed over the brackets around this one.
    low, term, enclosing = [0], [0], 0
    worst_brackets = worst_expression = statement_start = deepest_at = 0
    statement_brackets = statement_expression = 0
    worst_seconds = total_seconds = 0.0

    def end_statement() -> None:
        nonlocal total_seconds, worst_seconds, deepest_at
        seconds = deep_parse_seconds(statement_expression, statement_brackets)
        total_seconds += seconds
        if seconds > worst_seconds:
            worst_seconds, deepest_at = seconds, statement_start

    for match in _TOKENS.finditer(source):
        kind = _operator_kind(source, match)
        if kind is None:
            continue
        if kind == _LOW:
            low[-1] += 1
            term[-1] = 0
        elif kind == _HIGH or kind == _STRING or kind == _OPEN:
            term[-1] += 1
        elif kind == _CLOSE:
            if len(low) > 1:
                del low[-1], term[-1]
                enclosing -= low[-1] + term[-1]
            continue
        elif kind == _COMMA:
            low[-1] = term[-1] = 0
            continue
        elif kind == _END:
            if len(low) == 1:
                end_statement()
                low[0] = term[0] = 0
                statement_brackets = statement_expression = 0
                statement_start = match.end()
            continue
        depth = len(low) + enclosing + low[-1] + term[-1]
        if kind == _OPEN:
            enclosing += low[-1] + term[-1]
            low.append(0)
            term.append(0)
            statement_brackets = max(statement_brackets, len(low) - 1)
            worst_brackets = max(worst_brackets, len(low) - 1)
        statement_expression = max(statement_expression, depth)
        worst_expression = max(worst_expression, depth)
    end_statement()
    return Nesting(worst_brackets, worst_expression, deepest_at, total_seconds)


def nesting_problem(source: str) -> tuple[str, int] | None:
    """Why the source is too deep to parse within bounds, and the line; None when it is not."""
    nesting = measure(source)
    line = source.count("\n", 0, nesting.deepest_at) + 1
    if nesting.bracket_depth > MAX_BRACKET_DEPTH:
        return (
            f"brackets nested {nesting.bracket_depth} levels deep (initlint parses at most {MAX_BRACKET_DEPTH})",
            line,
        )
    if nesting.expression_depth > MAX_EXPRESSION_DEPTH:
        return (
            f"an expression nested about {nesting.expression_depth} levels deep "
            f"(initlint parses at most {MAX_EXPRESSION_DEPTH})",
            line,
        )
    if nesting.deep_parse_seconds > MAX_DEEP_PARSE_SECONDS:
        return (
            f"its deeply nested statements would take about {nesting.deep_parse_seconds:.0f} s to parse "
            f"(initlint allows {MAX_DEEP_PARSE_SECONDS:.0f} s)",
            line,
        )
    return None


# -- size ------------------------------------------------------------------------------------

#: LibCST holds about 750 bytes of memory per byte of source while it parses (measured: a
#: 294 KB file peaks at 238 MB, a 1.4 MB one at 1.06 GB), so the code it is given is bounded:
#: the largest real file of the scale run (torch's common_methods_invocations.py, 1.4 MB) fits.
MAX_CODE_BYTES = 2 * 2**20
#: Files this large are first stripped of their big data tables (see `without_data_tables`).
DATA_TABLES_ABOVE = 256 * 2**10
#: A top-level statement this long without any model marker is a data table.
DATA_TABLE_BYTES = 4096
_ASSIGNED_NAMES = re.compile(r"(?:[^\W\d]\w*[ \t]*(?::[^=\r\n]*)?=(?!=)[ \t]*)+")
_NEWLINES = re.compile(r"\r\n|\r|\n")


def without_data_tables(source: str) -> str:
    """`source` with every big top-level assignment to names, or bare literal, that cannot
    contain a model (no model marker in its text) replaced by `...` on as many lines: line
    numbers and every other statement stay as they were. One pass of the nesting scan's
    tokens, no syntax tree: a 600,000-element list no longer costs gigabytes."""
    if len(source) < DATA_TABLES_ABOVE:
        return source
    from initlint.prefilter import might_define_model

    pieces: list[str] = []
    depth = line_start = kept_until = 0
    simple = True
    for match in _TOKENS.finditer(source):
        kind = match.lastindex
        if kind == _OPEN or kind == _CLOSE:
            depth = depth + 1 if kind == _OPEN else max(depth - 1, 0)
        elif kind == _END and depth == 0:
            if match.group() == ";":
                simple = False
                continue
            text = source[line_start : match.end()]
            if simple and len(text) >= DATA_TABLE_BYTES and not might_define_model(text):
                placeholder = _placeholder(text)
                if placeholder is not None:
                    pieces += [source[kept_until:line_start], placeholder, *_NEWLINES.findall(text)]
                    kept_until = match.end()
            line_start, simple = match.end(), True
    pieces.append(source[kept_until:])
    return "".join(pieces)


def _placeholder(statement: str) -> str | None:
    """`a = b = ...` for an assignment to names at column 0, `...` for a bare literal; None
    for anything else (a compound or indented statement, an assignment to attributes)."""
    targets = _ASSIGNED_NAMES.match(statement)
    if targets is not None:
        return " = ".join(_assigned(targets.group())) + " = ..."
    if statement[:1] in "\"'[({":
        return "..."
    return None


def _assigned(prefix: str) -> list[str]:
    """The target names of `a = b: int = ` (annotations dropped)."""
    return [part.split(":")[0].strip() for part in re.split(r"=(?!=)", prefix) if part.strip()]


def size_problem(source: str) -> str | None:
    """Why `source` (data tables already left out) is too large to analyse, or None."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size <= MAX_CODE_BYTES:
        return None
    return (
        f"{size / 2**20:.1f} MB of code besides data tables (the limit is {MAX_CODE_BYTES / 2**20:.0f} MB: "
        "parsing takes about 750 bytes of memory per byte); split the file or exclude it"
    )
