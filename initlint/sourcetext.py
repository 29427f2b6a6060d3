"""Source text helpers shared by the engine, `# noqa`, the front ends and the runtime: physical
lines, one-line excerpts of messages and exceptions, and digests that tie a fix to the bytes it
was computed from. A leaf module: no LibCST, nothing from initlint."""

from __future__ import annotations

import hashlib
import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def one_line(text: str, limit: int = 300) -> str:
    """`text` with every run of whitespace (newlines included) made one space, cut to `limit`
    characters with `...`: exception texts and code excerpts can be long and multi-line."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def physical_lines(source: str) -> list[str]:
    """Lines with their endings, split like `open()` reads them (\\n, \\r\\n or \\r)."""
    return _LINE.findall(source)


def source_digest(data: bytes) -> str:
    """The SHA-256 of a file's bytes, as `Fix.source_sha256` records it."""
    return hashlib.sha256(data).hexdigest()


def error_text(error: BaseException, limit: int = 300) -> str:
    """`Type: message` of an exception on one line (just `Type` when the message is empty)."""
    message = str(error)
    return one_line(f"{type(error).__name__}: {message}" if message.strip() else type(error).__name__, limit)
