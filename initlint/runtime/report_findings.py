"""Typed findings from the child's reports: where each is reported (the creation of the layer
it is about), its headline, help and evidence, and whether its rule is enabled for the file."""

from __future__ import annotations

import linecache
import os
from typing import Sequence

from initlint.codes import RUNTIME_CHECK_FAILED
from initlint.config import Settings, is_enabled
from initlint.findings import Evidence, Finding
from initlint.runtime.report import name_pattern

HEADLINE_CHARS = 100
_HELP = {
    "INI101": "scale the residual writers' init by 1/sqrt(N residual layers), or name the scheme with --policy",
    "INI102": "give this parameter the policy's init (or name the scheme with --policy)",
    "INI103": "initialise every parameter created with torch.empty",
    "INI104": "make the init set values (normal_, fill_) instead of rescaling what is there",
    "INI105": "initialise every parameter and buffer in the init entry point, not in __init__ only",
    "INI106": "build each block with its own constructor call instead of copying one prototype",
    "INI108": "scale either the init or the forward pass by the depth factor, not both",
}


def headline(message: str, limit: int = HEADLINE_CHARS) -> str:
    """At most `limit` characters: the first clause when it fits, never cut mid-word."""
    if len(message) <= limit:
        return message
    first = message.split("; ")[0]
    if len(first) <= limit:
        return first
    cut = first[: limit - 3].rsplit(" ", 1)[0].rstrip(",:;(")
    return cut + "..."


def display_path(path: str, files: Sequence[str]) -> str:
    """The checked file's own spelling; else relative to the current folder when inside it."""
    checked = {os.path.abspath(p): p for p in files}
    absolute = os.path.abspath(path)
    if absolute in checked:
        return checked[absolute]
    relative = os.path.relpath(absolute)
    return absolute if relative.startswith("..") else relative


def to_findings(
    path: str,
    models: list[dict],
    errors: list[str],
    files: Sequence[str],
    settings: Settings,
    error_sites: dict[str, list] | None = None,
) -> list[Finding]:
    """Typed findings from the child's reports, at the creation of the layer they are about; a
    model that failed at its class (or factory) where `error_sites` knows it, else at the file."""
    result: list[Finding] = []

    def add(
        code: str,
        message: str,
        where: tuple[str, int, int],
        evidence: list[Evidence],
        details: dict,
        help: str | None = None,
    ) -> None:
        finding = _finding(code, message, where, evidence, details, help, files, settings)
        if finding is not None:
            result.append(finding)

    for model in models:
        for item in model.get("findings", []):
            message = f"[{model['model']}] {item['message']}"
            where, evidence = _position(path, model, item, message, files)
            details = _details(model, item)
            add(item["code"], item.get("headline") or message, where, evidence, details, help=details.get("advice"))
    for error in errors:
        # The headline says what failed; help carries the exact flags to pass.
        reason, _, advice = error.partition("; pass ")
        whole = f"runtime check not run: {error}"
        site = (error_sites or {}).get(error)
        where = (site[0], int(site[1]), _indent_column(site[0], int(site[1]))) if site else (path, 1, 1)
        add(
            RUNTIME_CHECK_FAILED,
            whole if len(whole) <= HEADLINE_CHARS else f"runtime check not run: {reason}",
            where,
            [Evidence(whole, where[1], where[2], display_path(where[0], files))],
            {"error": error},
            help=f"pass {advice}" if advice else None,
        )
    return result


def _details(model: dict, item: dict) -> dict:
    """A runtime finding's details: the child's, its model, its parameters, and their patterns
    as the table names them (a block's index as `*`, the positions inside a block kept)."""
    groups = {row["name"]: row.get("group") for row in model.get("rows", [])}
    params = item.get("params", [])
    return dict(
        item.get("details", {}),
        model=model["model"],
        params=params,
        patterns=sorted({groups.get(name) or name_pattern(name) for name in params}),
        policy=model.get("policy"),
    )


def _finding(
    code: str,
    message: str,
    where: tuple[str, int, int],
    evidence: list[Evidence],
    details: dict,
    help: str | None,
    files: Sequence[str],
    settings: Settings,
) -> Finding | None:
    """One typed finding at `where`, or None when its rule is unknown or not enabled for the file."""
    from initlint.engine import finding_of
    from initlint.rules import rule_by_code

    rule = rule_by_code(code)
    target = display_path(where[0], files)
    if rule is None or not is_enabled(rule.code, rule.default_enabled, settings, target):
        return None
    steps = tuple(Evidence(e.message, e.line, e.column, None if e.path == target else e.path) for e in evidence)
    return finding_of(
        rule,
        target,
        headline(message),
        (where[1], where[2], where[1], where[2]),
        details,
        evidence=steps,
        help=help or _HELP.get(code),
    )


def _position(path: str, model: dict, item: dict, message: str, files: Sequence[str]):
    """Where a runtime finding is reported, and its evidence: the measured result, the layer's
    own creation when a checked file's construction stands for it, the init op."""
    created, source, layer = item.get("created"), item.get("source"), item.get("layer_site")
    if created:
        where = (created[0], int(created[1]), int(created[2]))
    elif source:
        where = (source[0], int(source[1] or 1), _indent_column(source[0], int(source[1] or 1)))
    elif model.get("source_file"):
        where = (model["source_file"], int(model.get("class_line") or 1), 1)
    else:
        where = (path, 1, 1)
    # A check that did not run measured nothing: its message is what failed.
    said = message if item.get("code") == RUNTIME_CHECK_FAILED else f"measured: {message}"
    evidence = [Evidence(said, where[1], where[2], display_path(where[0], files))]
    if layer:
        shown = display_path(layer[0], files)
        evidence.append(
            Evidence(f"the layer is created in {shown}, which was not checked", int(layer[1]), int(layer[2]), shown)
        )
    if source:
        requested = item.get("details", {}).get("requested")
        what = f"the init asks for {requested} here" if requested else "the init op that decides it"
        line = int(source[1] or 1)
        evidence.append(Evidence(what, line, _indent_column(source[0], line), display_path(source[0], files)))
    return where, evidence


def _indent_column(path: str, line: int) -> int:
    """The 1-based column where `line` of `path` starts its code (1 when it cannot be read)."""
    text = linecache.getline(path, line)
    return len(text) - len(text.lstrip()) + 1 if text.strip() else 1
