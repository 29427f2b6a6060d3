"""Inits the code asks for that have no effect, whatever the policy says of the result:
`trunc_normal_` bounds too wide to cut anything, and a deliberate init of a few layers redrawn
by a later generic one. Read from the trace's write history of each parameter."""

from __future__ import annotations

from typing import Sequence

from initlint.runtime.distribution import Requested
from initlint.runtime.judge import ParamFacts
from initlint.runtime.report import Row, RuntimeFinding


#: Truncation bounds beyond this many stds cut < 0.3% of the draws: they truncate nothing.
TRUNCATION_LIMIT = 3.0


def lost_intent_findings(params: Sequence[ParamFacts], rows: list[Row]) -> list[RuntimeFinding]:
    """Inits the code asks for that have no effect: `trunc_normal_` bounds too wide to cut
    (absolute +-2 around std 0.02), and a deliberate init of a few layers redrawn by a later
    generic one (which the policy may well accept: the special init is lost all the same)."""
    by_name = {p.name: p for p in params}
    ok = {row.name for row in rows if row.verdict == "ok"}
    groups: dict[tuple, list[ParamFacts]] = {}
    for param in params:
        requested = param.requested
        if (
            requested.kind == "trunc_normal"
            and requested.nominal_std > 0
            and min(requested.mean - requested.low, requested.high - requested.mean)
            > TRUNCATION_LIMIT * 1.000001 * requested.nominal_std
        ):
            groups.setdefault(("trunc", requested.low, requested.high), []).append(param)
    lines = _patterns_per_line(params)
    for name in ok:
        lost = _lost_special_init(by_name[name].history, lines)
        if lost is not None:
            groups.setdefault(("lost",) + lost, []).append(by_name[name])
    return [_lost_intent_finding(key, members) for key, members in groups.items()]


def _line_of(requested: Requested) -> tuple | None:
    return tuple(requested.source[:2]) if requested.source else None


def _patterns_per_line(params: Sequence[ParamFacts]) -> dict[tuple, set[str]]:
    lines: dict[tuple, set[str]] = {}
    for param in params:
        for step in param.history:
            line = _line_of(step)
            if line is not None and not step.by_default:
                lines.setdefault(line, set()).add(param.pattern)
    return lines


def _lost_special_init(history: list[Requested], lines: dict[tuple, set[str]]) -> tuple | None:
    """(special line, generic line) when an init of at most two layer patterns is redrawn,
    still inside the model's construction, by a line that writes those and more
    (`apply(_init_weights)` after a zero init)."""
    for earlier, later in zip(history, history[1:]):
        first, second = _line_of(earlier), _line_of(later)
        # A caller that re-initialises the built model replaces its scheme on purpose.
        if first is None or second is None or first == second or earlier.by_default or not later.in_constructor:
            continue
        if earlier.kind in ("uninitialised", "unknown", "computed") or later.op in ("mul_", "div_", "add_", "sub_"):
            continue
        special, generic = lines.get(first, set()), lines.get(second, set())
        if (
            len(special) <= 2
            and special < generic
            and (earlier.kind, earlier.mean, earlier.std) != (later.kind, later.mean, later.std)
        ):
            return first, second, earlier.describe(), later.describe()
    return None


def _lost_intent_finding(key: tuple, members: list[ParamFacts]) -> RuntimeFinding:
    patterns = sorted({m.pattern for m in members})
    names = [m.name for m in members]
    first = members[0].requested
    if key[0] == "trunc":
        _, low, high = key
        sigmas = min(first.mean - low, high - first.mean) / first.nominal_std
        message = (
            f"{', '.join(patterns)}: trunc_normal_ std {first.nominal_std:.3g} with bounds [{low:g}, {high:g}] "
            f"(+-{sigmas:.3g} std) truncates nothing; the bounds are absolute: pass a=-2*std, b=2*std"
        )
        headline = f"trunc_normal_ bounds [{low:g}, {high:g}] lie {sigmas:.3g} std out: nothing is truncated"
        return RuntimeFinding(
            "INI102", message, names, first.source, {"requested": first.describe()}, headline=headline
        )
    _, special, generic, what, by = key
    message = (
        f"{', '.join(patterns)}: the init at line {special[1]} ({what}) is redrawn at line {generic[1]} "
        f"({by}, an init of every layer of the kind): the special init is lost"
    )
    headline = f"{patterns[0]}: init at line {special[1]} ({what}) is redrawn at line {generic[1]}"
    return RuntimeFinding("INI102", message, names, list(generic), {"requested": by, "lost": what}, headline=headline)
