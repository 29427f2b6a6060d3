"""Writing fixes to disk: all or nothing, and only onto the bytes that were linted.

`apply_fixes(findings)` groups the findings' `Fix` edits by file and, for each file:

1. reads it and refuses it if its SHA-256 differs from the `source_sha256` the fix carries
   (recorded by `engine.lint_file`): a file edited since it was linted is never touched;
2. applies the fixes in source order, skipping a fix whose edits overlap an earlier one's
   (or each other), and refuses the file if an edit lies outside it;
3. re-parses the result and refuses the file if it no longer parses;
4. encodes it back with the file's own encoding, BOM and line endings kept (edits are text).

Then, only if every surviving file got this far, each new content goes to a temporary file in
the target's folder (same file system, so the final rename is atomic) with the target's
permission bits, and the temporaries replace their targets (`os.replace`) after a last check
that no target changed meanwhile. An error while writing or replacing puts back every file
already replaced and deletes every temporary: a failing run leaves every file as it was.
Symbolic links are followed: the link stays, its target gets the fix.

A file nobody may write (no write permission bit) is meant to stay as it is: it is left
unchanged and reported, as is a file owned by another user when initlint cannot give the new
file that owner. A fixed file keeps its owner, group and permission bits.

Temporary files are named `.NAME.PID.XXXXXXXX.initlint-tmp`: a run killed between writing and
replacing (SIGKILL, a CI timeout) leaves them behind, and the next `--fix` in that folder
removes those whose process is gone.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import re
import stat
import time
import tempfile
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from initlint.findings import Edit, Finding, Fix
from initlint.safety import read_regular_file

_LINE_START = re.compile(r"\r\n|\r|\n")
TEMPORARY_SUFFIX = ".initlint-tmp"
#: `.NAME.PID.RANDOM.initlint-tmp`; the older `.NAME.RANDOM.initlint-tmp` has no PID.
_TEMPORARY = re.compile(r"^\..+?(?:\.(?P<pid>\d+))?\.[a-z0-9_]{8}" + re.escape(TEMPORARY_SUFFIX) + "$")
#: A temporary without a PID is stale once it is this old.
_STALE_AFTER_S = 600


@dataclass
class FixReport:
    #: path -> number of fixes applied to it.
    fixed: dict[str, int] = field(default_factory=dict)
    #: (path, reason) for every file left untouched, and for every fix skipped in a fixed file.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Set when writing failed and every file was put back: nothing was changed.
    error: str | None = None

    @property
    def fixes_applied(self) -> int:
        return sum(self.fixed.values())


class _Refused(Exception):
    """This file cannot be fixed safely; it is left as it is."""


@dataclass
class _Planned:
    path: Path  # the real file (links resolved)
    original: bytes
    new: bytes
    applied: int


def apply_fixes(findings: Iterable[Finding], unsafe: bool = False) -> FixReport:
    """Apply the findings' safe fixes (and the unsafe ones too with `unsafe`)."""
    report = FixReport()
    by_path: dict[str, list[Fix]] = {}
    folders = set()
    for finding in findings:
        folders.add(os.path.dirname(os.path.realpath(finding.path)))
        if finding.fix is not None and (finding.fix.safe or unsafe):
            by_path.setdefault(finding.path, []).append(finding.fix)
    remove_stale_temporaries(folders)
    planned: list[tuple[str, _Planned]] = []
    for name, fixes in sorted(by_path.items()):
        try:
            planned.append((name, _plan(name, fixes, report)))
        except _Refused as refusal:
            report.skipped.append((name, str(refusal)))
    try:
        _write_all([plan for _, plan in planned])
    except (OSError, _Refused) as error:
        report.error = f"nothing was changed: {error}"
        return report
    for name, plan in planned:
        report.fixed[name] = plan.applied
    return report


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _plan(name: str, fixes: list[Fix], report: FixReport) -> _Planned:
    digests = {fix.source_sha256 for fix in fixes}
    if None in digests:
        raise _Refused("no content hash recorded at lint time (lint it with engine.lint_file)")
    if len(digests) > 1:
        raise _Refused("its fixes come from different versions of the file")
    path = Path(os.path.realpath(name))
    try:
        info = path.stat()
        original = read_regular_file(path)
    except OSError as error:
        raise _Refused(f"cannot read: {error.strerror or error}") from None
    _check_writable(path, info)
    if sha256(original) != digests.pop():
        raise _Refused("the file changed since it was linted")
    encoding, text = _decode(original)

    chosen: list[Edit] = []
    applied = 0
    for fix in sorted(fixes, key=lambda fix: min((e.line, e.column) for e in fix.edits) if fix.edits else (0, 0)):
        candidate = sorted(chosen + list(fix.edits), key=lambda e: (e.line, e.column, e.end_line, e.end_column))
        if _overlapping(candidate):
            report.skipped.append((name, f"fix {fix.description!r} overlaps another fix; run again to apply it"))
            continue
        chosen, applied = candidate, applied + 1
    new_text = _apply(text, chosen)

    from initlint import guard
    from initlint.engine import UnparseableSource, parse

    try:
        guard.run_bounded(lambda: parse(new_text))
    except UnparseableSource as error:
        raise _Refused(f"the fixed file would not parse ({error.reason})") from None
    except (Exception, guard.BudgetExceeded) as error:
        raise _Refused(f"the fixed file could not be checked ({type(error).__name__}: {error})") from None
    try:
        new = new_text.encode(encoding)
    except UnicodeEncodeError:
        raise _Refused(f"the fix cannot be written in the file's encoding ({encoding})") from None
    return _Planned(path, original, new, applied)


def _check_writable(path: Path, info: os.stat_result) -> None:
    """Refuse a read-only file (it is meant to stay unchanged) and one whose owner the new
    file could not get (only root may give a file away)."""
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise _Refused("the file is read-only; make it writable to fix it")
    owner = getattr(os, "geteuid", lambda: info.st_uid)()
    if info.st_uid != owner and owner != 0:
        raise _Refused("the file belongs to another user; fixing it would change its owner")


def remove_stale_temporaries(folders: Iterable[str]) -> list[str]:
    """Delete this user's `*.initlint-tmp` files in `folders` whose `--fix` run is gone."""
    removed = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            match = _TEMPORARY.match(entry.name)
            if match is not None and _stale(entry, match.group("pid")):
                try:
                    os.unlink(entry.path)
                    removed.append(entry.path)
                except OSError:
                    pass
    return removed


def _stale(entry: os.DirEntry, pid: str | None) -> bool:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_uid != getattr(os, "geteuid", lambda: info.st_uid)():
        return False
    if pid is None:
        return time.time() - info.st_mtime > _STALE_AFTER_S
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, OSError):
        return False
    return False


def _decode(data: bytes) -> tuple[str, str]:
    """(codec, text) with the BOM kept in the codec, so encoding gives the same bytes back."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, ValueError, LookupError) as error:
        raise _Refused(f"cannot decode: {error}") from None
    if text.startswith("\ufeff"):
        return "utf-8-sig", text[1:]
    return codecs.lookup(encoding).name, text


def _overlapping(edits: list[Edit]) -> bool:
    for edit in edits:
        if (edit.end_line, edit.end_column) < (edit.line, edit.column):
            return True
    for before, after in zip(edits, edits[1:]):
        if (before.end_line, before.end_column) > (after.line, after.column):
            return True
        # Two insertions at one point: their order would be a guess.
        if (before.line, before.column) == (after.line, after.column) == (before.end_line, before.end_column):
            return True
    return False


def _apply(text: str, edits: list[Edit]) -> str:
    """Edits use 1-based lines and columns (characters), ends exclusive, on \\n, \\r\\n or \\r lines."""
    starts = [0] + [match.end() for match in _LINE_START.finditer(text)]

    def offset(line: int, column: int) -> int:
        if not 1 <= line <= len(starts):
            raise _Refused(f"an edit points at line {line}, outside the file")
        line_end = starts[line] if line < len(starts) else len(text)
        position = starts[line - 1] + column - 1
        if column < 1 or position > line_end:
            raise _Refused(f"an edit points at column {column} of line {line}, outside that line")
        return position

    first_newline = _LINE_START.search(text)
    newline = first_newline.group() if first_newline else "\n"
    pieces = []
    cursor = 0
    for edit in edits:
        start, end = offset(edit.line, edit.column), offset(edit.end_line, edit.end_column)
        # Edits are written with \n; the file keeps its own line endings.
        pieces += [text[cursor:start], _LINE_START.sub(newline, edit.text)]
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _write_all(plans: list[_Planned]) -> None:
    temporaries: list[str] = []
    replaced: list[_Planned] = []
    try:
        for plan in plans:
            temporaries.append(_write_temporary(plan.path, plan.new))
        for plan, temporary in zip(plans, temporaries):
            if sha256(read_regular_file(plan.path)) != sha256(plan.original):
                raise _Refused(f"{plan.path} changed while the fixes were being written")
            os.replace(temporary, plan.path)
            replaced.append(plan)
    except BaseException:
        for plan in reversed(replaced):
            try:
                _restore(plan)
            except OSError:  # keep restoring the others; the original error is the one to see
                pass
        raise
    finally:
        for temporary in temporaries:
            if os.path.exists(temporary):
                os.unlink(temporary)


def _write_temporary(target: Path, data: bytes) -> str:
    """`data` in a new file next to `target`, with its owner and permission bits, on disk."""
    descriptor, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=TEMPORARY_SUFFIX
    )
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        info = target.stat()
        if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            os.chown(temporary, info.st_uid, info.st_gid)  # before chmod: chown clears setuid bits
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


def _restore(plan: _Planned) -> None:
    """Put the original bytes back, atomically as well."""
    temporary = _write_temporary(plan.path, plan.original)
    os.replace(temporary, plan.path)


def preview_fixes(findings: Iterable[Finding], unsafe: bool = False) -> tuple[FixReport, list[tuple[str, str, str]]]:
    """What `apply_fixes` would change, writing nothing (`--diff`): the report and, per file,
    (path, old text, new text)."""
    report = FixReport()
    previews = []
    by_path: dict[str, list[Fix]] = {}
    for finding in findings:
        if finding.fix is not None and (finding.fix.safe or unsafe):
            by_path.setdefault(finding.path, []).append(finding.fix)
    for name, fixes in sorted(by_path.items()):
        try:
            plan = _plan(name, fixes, report)
        except _Refused as refusal:
            report.skipped.append((name, str(refusal)))
            continue
        encoding, old = _decode(plan.original)
        previews.append((name, old, plan.new.decode(encoding)))
        report.fixed[name] = plan.applied
    return report, previews
