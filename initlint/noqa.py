"""`# noqa` suppression, matched exactly as flake8 7 matches it.

The CLI and the flake8 plugin must hide the same findings, so the rules here are flake8's own:

- the directive is the first `# noqa` (any case; `# noqa:CODE` or `# noqa: CODE1,CODE2`) in the
  text of the finding's *noqa range*: its physical line, widened to the whole token run between
  two newline tokens when a token spans lines (a triple-quoted string, a backslash continuation);
  a line of a bracketed expression is its own range;
- a bare `# noqa` (or one whose code list does not parse, e.g. `# noqa : INI001`) hides everything;
- a code hides findings whose code equals it or starts with it (`INI0` hides `INI001`); codes are
  case-sensitive.

On top, two opt-in rules judge the directives themselves: INI903 (a bare `# noqa` that hides an
initlint finding) and INI904 (an `INI` code in a directive that hid nothing). Codes of other
linters are left alone, and an INI code whose rules are all switched off is not judged.
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass, field, replace
from typing import Iterable

from initlint.codes import BLANKET_NOQA, CODES, UNUSED_NOQA, default_enabled
from initlint.config import Settings, code_matches, is_enabled
from initlint.findings import Finding, tool_finding

# `physical_lines` is also imported from here by older callers.
from initlint.sourcetext import physical_lines

NOQA_PATTERN = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
BLANKET_CODE, UNUSED_CODE = BLANKET_NOQA, UNUSED_NOQA


@dataclass
class Directive:
    line: int  # 1-based physical line of the directive
    column: int  # 1-based
    end_column: int
    codes: tuple[str, ...] | None  # None: a bare directive, no code list
    used_codes: set[str] = field(default_factory=set)
    hidden: list[Finding] = field(default_factory=list)


def _token_ranges(lines: list[str]) -> dict[int, tuple[int, int]]:
    """Map each line to its noqa range (first, last line), as flake8's FileProcessor does."""
    ranges: dict[int, tuple[int, int]] = {}
    first, last = len(lines) + 2, -1
    try:
        for token in tokenize.generate_tokens(iter(lines).__next__):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, token.start[0]), max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                ranges.update(dict.fromkeys(range(first, last + 1), (first, last)))
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError, StopIteration):
        # flake8 then falls back to the physical line, for every line.
        return {}
    return ranges


class NoqaIndex:
    """The directives of one file and which findings each of them hides."""

    def __init__(self, source: str) -> None:
        self.lines = physical_lines(source)
        self._ranges = _token_ranges(self.lines)
        self._directives: dict[tuple[int, int], Directive | None] = {}

    def directive_for(self, line: int) -> Directive | None:
        first, last = self._ranges.get(line, (line, line))
        key = (first, last)
        if key not in self._directives:
            self._directives[key] = self._parse(first, last)
        return self._directives[key]

    def all_directives(self) -> list[Directive]:
        for line in range(1, len(self.lines) + 1):
            self.directive_for(line)
        return [directive for directive in self._directives.values() if directive is not None]

    def _parse(self, first: int, last: int) -> Directive | None:
        if first < 1 or first > len(self.lines):
            return None
        text = "".join(self.lines[first - 1 : last])
        match = NOQA_PATTERN.search(text)
        if match is None:
            return None
        line, offset = first, match.start()
        for physical in self.lines[first - 1 : last]:
            if offset < len(physical):
                break
            offset -= len(physical)
            line += 1
        codes_text = match.group("codes")
        codes = None if codes_text is None else tuple(code for code in re.split(r"[,\s]+", codes_text) if code)
        shown = re.split(r"[\r\n]", match.group(0), maxsplit=1)[0].rstrip(", \t")
        return Directive(line=line, column=offset + 1, end_column=offset + 1 + len(shown), codes=codes)

    def hides(self, finding: Finding) -> bool:
        directive = self.directive_for(finding.line)
        if directive is None:
            return False
        if directive.codes is None:
            directive.hidden.append(finding)
            return True
        matching = [code for code in directive.codes if finding.code == code or finding.code.startswith(code)]
        directive.used_codes.update(matching)
        if matching:
            directive.hidden.append(finding)
        return bool(matching)


def filter_findings(
    findings: Iterable[Finding], source: str, path: str, settings: Settings, *, drop_hidden: bool = True
) -> list[Finding]:
    """The findings `# noqa` lets through (all of them when `drop_hidden` is false, as flake8
    applies its own noqa), plus INI903/INI904 findings when those rules are enabled."""
    findings = list(findings)
    wants_blanket = _enabled(BLANKET_CODE, settings, path)
    wants_unused = _enabled(UNUSED_CODE, settings, path)
    if (not findings and not wants_unused) or NOQA_PATTERN.search(source) is None:
        return sorted(findings, key=Finding.sort_key)
    index = NoqaIndex(source)
    kept = [finding for finding in findings if not index.hides(finding) or not drop_hidden]
    if wants_blanket or wants_unused:
        kept.extend(directive_findings(index, path, settings, wants_blanket, wants_unused))
    return sorted(kept, key=Finding.sort_key)


def _enabled(code: str, settings: Settings, path: str) -> bool:
    return is_enabled(code, default_enabled(code), settings, path)


def _judged(code: str, settings: Settings, path: str) -> bool:
    """Can this run tell whether `code` was needed? Only if some enabled rule matches it,
    or if it names no initlint rule at all."""
    matching = [known for known in CODES if code_matches(known, (code,))]
    return not matching or any(_enabled(known, settings, path) for known in matching)


def directive_findings(index: NoqaIndex, path: str, settings: Settings, blanket: bool, unused: bool) -> list[Finding]:
    """INI903 (when `blanket`) and INI904 (when `unused`) for the directives of `index`, judged by
    what it has hidden so far. An INI904 finding lists its unused codes in `details["codes"]`."""
    results = []
    for directive in index.all_directives():
        if directive.codes is None:
            if not (blanket and directive.hidden):
                continue
            hidden = ", ".join(sorted({finding.code for finding in directive.hidden}))
            code, message = (
                BLANKET_CODE,
                f"bare `# noqa` hides {hidden} and every other code on this line; write `# noqa: {hidden}`",
            )
        else:
            stale = [
                c
                for c in directive.codes
                if c.startswith("INI") and c not in directive.used_codes and _judged(c, settings, path)
            ]
            if not (unused and stale):
                continue
            code, message = (
                UNUSED_CODE,
                f"unused `# noqa` code{'s' if len(stale) > 1 else ''} {', '.join(stale)}: nothing to hide on this line",
            )
        finding = tool_finding(code, path, message, directive.line, directive.column)
        details = {"codes": stale} if code == UNUSED_CODE else {}
        results.append(replace(finding, end_column=directive.end_column, details=details))
    return results
