"""The guarded parse every reader of source text shares: the engine, `explain`, fixes and the
project layer (which parses the checked file's siblings and must sit below the engine).

`parse` refuses up front what would crash LibCST or take unbounded time; `decode` decodes bytes
as Python does.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings

import libcst as cst

from initlint.errors import UnparseableSource
from initlint.nesting import nesting_problem, size_problem, without_data_tables
from initlint.safety import require_ascii_compatible
from initlint.sourcetext import one_line

NUL_BYTES = "cannot parse: the file contains NUL bytes (binary data?)"


def parse(source: str) -> cst.Module:
    """LibCST's parse, refused up front where it would crash or take unbounded time."""
    if "\0" in source:
        line = source.count("\n", 0, source.index("\0")) + 1
        raise UnparseableSource(NUL_BYTES, line)
    problem = nesting_problem(source)
    if problem is not None:
        reason, line = problem
        raise UnparseableSource(f"nesting too deep to analyse: {reason}", line)
    source = without_data_tables(source)
    too_large = size_problem(source)
    if too_large is not None:
        raise UnparseableSource(f"too large to analyse: {too_large}")
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise _syntax_error(source, error) from None
    except RecursionError:
        raise UnparseableSource("nesting too deep to analyse: the parser ran out of recursion depth") from None


def _syntax_error(source: str, error: cst.ParserSyntaxError) -> UnparseableSource:
    """Python's own message and position where Python rejects the file too (they are the
    clearer ones); otherwise say that the syntax is newer than LibCST's grammar."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings of the user's code are not ours
            compile(source, "<checked file>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as python_error:
        return UnparseableSource(
            f"syntax error: {one_line(python_error.msg)}", python_error.lineno or 1, python_error.offset or 1
        )
    except (ValueError, RecursionError, MemoryError):
        pass
    else:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        reason = f"valid Python {version}, but LibCST {_libcst_version()} cannot parse it ({one_line(error.message)})"
        return UnparseableSource(reason, error.raw_line or 1, error.raw_column + 1)
    return UnparseableSource(f"cannot parse: {one_line(error.message)}", error.raw_line or 1, error.raw_column + 1)


def _libcst_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("libcst")
    except PackageNotFoundError:
        return "(unknown version)"


def decode(data: bytes) -> str:
    """Decode like Python does: PEP 263 cookie or BOM, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    require_ascii_compatible(encoding)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text
