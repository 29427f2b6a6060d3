"""Runtime findings merged into the static ones: `# noqa` applies to both, and a runtime finding
on a writer a static finding already reports becomes evidence of that finding."""

from __future__ import annotations

from dataclasses import replace

from initlint.config import Settings
from initlint.findings import Finding
from initlint.runtime.report import name_pattern
from initlint.safety import read_regular_file


def merge_findings(static: list[Finding], runtime: list[Finding], settings: Settings) -> list[Finding]:
    """`# noqa` for runtime findings (and INI904 no longer calls their codes unused), then a
    runtime finding on a writer a static finding reports becomes evidence of that finding."""
    runtime, static = _apply_noqa(runtime, static, settings)
    merged = list(static)
    for finding in runtime:
        details = finding.details
        patterns = details.get("patterns") or [name_pattern(name) for name in details.get("params", [])]
        layers = {pattern.rpartition(".")[0] for pattern in patterns}
        # Static rules are INI0xx; tool problems (INI9xx) carry no writer to merge with.
        matches = [
            i
            for i, other in enumerate(merged)
            if other.path == finding.path and other.code.startswith("INI0") and layers & _static_layers(other)
        ]
        if not matches:
            merged.append(finding)
            continue
        for index in matches:
            other = merged[index]
            details = dict(other.details, runtime=dict(finding.details, code=finding.code))
            # The measurement is about this writer: shown at the static finding's own position.
            measured = replace(finding.evidence[0], line=other.line, column=other.column, path=None)
            merged[index] = replace(
                other, evidence=other.evidence + (measured,) + finding.evidence[1:], details=details
            )
    return sorted(merged, key=Finding.sort_key)


def _static_layers(finding: Finding) -> set[str]:
    """The layers a static finding is about, from its details: `layer`, and `layers` (every
    layer its message names, such as the one INI001's misdirected depth factor reaches instead)."""
    details = finding.details or {}
    return set(details.get("layers", ())) | ({details["layer"]} if details.get("layer") else set())


def _apply_noqa(
    runtime: list[Finding], static: list[Finding], settings: Settings
) -> tuple[list[Finding], list[Finding]]:
    from initlint import noqa

    if settings.ignore_noqa or not runtime:
        return runtime, static
    kept: list[Finding] = []
    static = list(static)
    for path in sorted({finding.path for finding in runtime}):
        try:
            index = noqa.NoqaIndex(read_regular_file(path).decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            kept.extend(f for f in runtime if f.path == path)
            continue
        kept.extend(f for f in runtime if f.path == path and not index.hides(f))
        static = _restate_unused(static, index, path, settings)
    return kept, static


def _restate_unused(static: list[Finding], index, path: str, settings: Settings) -> list[Finding]:
    """The static pass called `# noqa` codes unused that runtime findings use: say it again
    with what is still unused (or drop it)."""
    from initlint import noqa

    result = []
    for finding in static:
        directive = (
            index.directive_for(finding.line) if finding.path == path and finding.code == noqa.UNUSED_CODE else None
        )
        if directive is None or not directive.used_codes or directive.codes is None:
            result.append(finding)
            continue
        stale = set(finding.details.get("codes", ()))
        directive.used_codes |= set(directive.codes) - stale
        result.extend(
            item for item in noqa.directive_findings(index, path, settings, False, True) if item.line == directive.line
        )
    return result
