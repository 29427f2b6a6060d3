"""Requested distributions against a policy: rows for the table, findings for the report.

Deterministic: the trace knows exactly what each parameter is asked to hold, so no statistics
are involved here (those are `stats.py`'s, for `--materialize`). Rows that share one bug are
reported as one finding (every residual writer missing its depth factor is one finding).
Inits that have no effect whatever the policy says are `lost_intent.py`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

from initlint import roles
from initlint.runtime.policy import (
    AUTO_CANDIDATES,
    WEIGHT_ROLES,
    ModelFacts,
    Policy,
    constant_matches,
    expected_for,
    std_matches,
)
from initlint.runtime.default_init import TORCH_DEFAULT, at_layer_default, default_init_finding, is_explicit
from initlint.runtime.distribution import Requested
from initlint.runtime.report import Row, RuntimeFinding, layer_index, name_pattern
from initlint.runtime.writers import ForwardMap

#: A runtime factor within this of 1 is no runtime scaling.
FACTOR_TOLERANCE = 0.05


@dataclass
class ParamFacts:
    name: str
    shape: list[int]
    requested: Requested
    history: list[Requested]
    #: Its name with the index of each repeated block as `*` (`report.block_pattern`), where
    #: the copies are known; else every index is.
    group: str = ""

    @property
    def pattern(self) -> str:
        return self.group or name_pattern(self.name)

    @property
    def fan_in(self) -> int:
        if len(self.shape) < 2:
            return max(math.prod(self.shape), 1)
        return self.shape[1] * math.prod(self.shape[2:])


def model_facts(params: Sequence[ParamFacts], fmap: ForwardMap, base_std: float) -> ModelFacts:
    writers = fmap.writer_names
    blocks = {layer_index(name) for name in writers} - {None}
    width = next((p.shape[-1] for p in params if fmap.roles.get(p.name) == "embedding" and len(p.shape) == 2), 0)
    if not width:
        width = next((max(p.shape) for p in params if p.name in writers), 1)
    layers = fmap.layers or len(fmap.writes)
    return ModelFacts(
        layers=layers,
        blocks=len(blocks) or max(layers // 2, 1),
        width=width,
        base_std=base_std,
        post_norm=fmap.post_norm,
    )


def _compared_std(requested: Requested) -> float:
    # A truncated normal is judged by the std it was asked for; the exact std is in the row.
    return requested.nominal_std if requested.kind == "trunc_normal" else requested.std


def make_row(
    param: ParamFacts,
    role: str,
    factor: float | None,
    policy_name: str,
    facts: ModelFacts,
    norm_offset: float,
    layer_default: bool = False,
) -> Row:
    """`layer_default`: the parameter holds its layer's own default for the way the forward uses
    it (`default_init.at_layer_default`); a non-writer is then judged against that default."""
    requested = param.requested
    expected = expected_for(policy_name, role, layer_index(param.name), param.fan_in, facts)
    row = Row(
        param.name,
        role,
        list(param.shape),
        requested.describe(),
        requested.std or None,
        expected.describe() if expected else "",
        expected.std if expected else None,
        None,
        "not judged",
        factor=factor,
        source=list(requested.source) if requested.source else None,
        group=param.group,
    )
    if requested.kind == "uninitialised" or requested.unwritten_fraction > 0:
        row.verdict = "uninitialised"
    elif expected is None or requested.kind in ("unknown", "computed"):
        row.verdict = "not judged"
    elif expected.constant is not None:
        value = requested.mean + (norm_offset if role == "norm-gain" else 0.0)
        row.verdict = "ok" if requested.is_constant and constant_matches(value, expected) else "mismatch"
        if role == "norm-gain" and norm_offset:
            row.requested = f"{requested.describe()} (gain w{norm_offset:+g} = {value:g})"
    else:
        std = _compared_std(requested)
        if factor is not None and abs(factor - 1) > FACTOR_TOLERANCE:
            std *= abs(factor)
        row.ratio = std / expected.std if expected.std else None
        row.verdict = "ok" if std_matches(std, requested.mean, expected, 0.10) else "mismatch"
    if row.verdict == "mismatch" and role != "writer" and layer_default:
        row.verdict = TORCH_DEFAULT
    return row


def judge(
    params: Sequence[ParamFacts], fmap: ForwardMap, policy: Policy, base_std: float
) -> tuple[str, list[Row], list[RuntimeFinding]]:
    """(policy used, rows, findings). `auto` picks the first recognised scheme that fits all weights."""
    facts = model_facts(params, fmap, base_std)
    factors = fmap.factors()
    writers = fmap.writer_names
    unseen = roles.UNUSED if fmap.observed else roles.UNOBSERVED

    def role_of(param: ParamFacts) -> str:
        return "writer" if param.name in writers else fmap.roles.get(param.name, unseen)

    def rows_for(policy_name: str, facts_of=params) -> list[Row]:
        return [
            make_row(
                p,
                role_of(p),
                factors.get(p.name),
                policy_name,
                facts,
                fmap.norm_offsets.get(p.name, 0.0),
                at_layer_default(p.requested, role_of(p), p.name in fmap.head),
            )
            for p in facts_of
        ]

    by_name = {p.name: p for p in params}
    chosen = policy.name
    if policy.name == "auto":
        chosen, rows = "gpt2", None
        for candidate in AUTO_CANDIDATES:
            candidate_rows = rows_for(candidate)
            if rows is None:
                rows = candidate_rows
            if _fits(candidate_rows, by_name):
                chosen, rows = candidate, candidate_rows
                break
        assert rows is not None  # AUTO_CANDIDATES is not empty: the loop set it
        label = f"auto -> {chosen}"
        if chosen == "gpt2" and _fits(rows_for("fan-in", [_fan_out(p) for p in params]), by_name):
            rows = rows_for("fan-in")
            return "auto -> fan-in", rows, [_wrong_fan_finding(rows)]
    else:
        rows = rows_for(chosen)
        label = chosen
    findings = findings_from_rows(rows, by_name, facts, chosen)
    left_at_default = default_init_finding(rows, by_name, chosen)
    return label, rows, findings + ([left_at_default] if left_at_default else [])


def _fits(rows: list[Row], params: dict[str, ParamFacts]) -> bool:
    """Does the policy explain every judged weight, and some init the code asked for? Layers at
    PyTorch's default (`TORCH_DEFAULT` rows, default-initialised writers) are no plan of the model."""
    judged = [r for r in rows if r.role in WEIGHT_ROLES and r.verdict in ("ok", "mismatch")]
    asked = any(is_explicit(params[r.name].requested) for r in judged)
    return asked and all(r.verdict == "ok" for r in judged)


def _fan_out(param: ParamFacts) -> ParamFacts:
    """The parameter as a fan-in init that reads the wrong dimension (shape[0]) sees it."""
    if len(param.shape) < 2:
        return param
    return replace(param, shape=[param.shape[1], param.shape[0], *param.shape[2:]])


def _wrong_fan_finding(rows: list[Row]) -> RuntimeFinding:
    """Every weight fits 1/sqrt(fan_in) with fan_in read from shape[0]: one bug, one finding."""
    wrong = [r for r in rows if r.role in WEIGHT_ROLES and r.verdict == "mismatch"]
    patterns = sorted({r.pattern for r in wrong})
    first = wrong[0]
    message = (
        f"{', '.join(patterns)}: std 1/sqrt(shape[0]) (fan-out) where fan-in is shape[1] "
        f"({len(wrong)} tensors, e.g. {first.name} {first.shape}: std {first.requested_std:.3g}, "
        f"fan-in policy expects {first.expected_std:.3g})"
    )
    headline = f"fan-in read from the wrong dimension: {len(wrong)} weights get std 1/sqrt(shape[0])"
    return RuntimeFinding(
        "INI102",
        message,
        [r.name for r in wrong],
        first.source,
        {"requested": first.requested, "expected": first.expected, "policy": "fan-in"},
        headline=headline,
    )


def findings_from_rows(
    rows: list[Row], params: dict[str, ParamFacts], facts: ModelFacts, policy_name: str
) -> list[RuntimeFinding]:
    findings = []
    for (code, requested, expected, _ratio, _by_default), members in _group_rows(rows, params).items():
        first = members[0]
        patterns = sorted({m.pattern for m in members})
        message = _message(code, requested, expected, members, patterns, params, facts, policy_name)
        findings.append(
            RuntimeFinding(
                code,
                message,
                [m.name for m in members],
                first.source,
                _details(requested, expected, members, params, policy_name),
                headline=_headline(code, first, patterns, policy_name),
            )
        )
    return findings


def _group_rows(rows: list[Row], params: dict[str, ParamFacts]) -> dict[tuple, list[Row]]:
    """The mismatched and uninitialised rows, grouped by code, request, expectation, ratio and by
    whether a layer's own default wrote them (the hint tells those apart)."""
    groups: dict[tuple, list[Row]] = {}
    for row in rows:
        if row.verdict not in ("mismatch", "uninitialised"):
            continue
        code = _code(row)
        # Measured values differ tensor to tensor by sampling noise: group them more coarsely.
        digits = 1 if row.requested.startswith("measured") else 3
        ratio = None if row.ratio is None else round(row.ratio, digits)
        key = (code, row.requested, row.expected, ratio, params[row.name].requested.by_default)
        groups.setdefault(key, []).append(row)
    return groups


def _message(
    code: str,
    requested: str,
    expected: str,
    members: list[Row],
    patterns: list[str],
    params: dict[str, ParamFacts],
    facts: ModelFacts,
    policy_name: str,
) -> str:
    """The full message of one group's finding: what was requested, what the policy expects, a hint."""
    first = members[0]
    what = f"{', '.join(patterns)} ({len(members)} tensor{'s' if len(members) > 1 else ''})"
    if code == "INI103":
        fraction = params[first.name].requested.unwritten_fraction
        part = f"{fraction:.0%} of " if fraction else ""
        return f"{part}{what} never written after torch.empty: the values are whatever memory held"
    ratio_text = f" (ratio {first.ratio:.3g})" if first.ratio is not None else ""
    subject = {"INI101": "residual writer", "INI108": "residual writer"}.get(code, first.role)
    via = ""
    if code == "INI108" and first.ratio is not None and first.expected_std:
        via = (
            f", multiplied by {first.factor:.4g} in forward: effective std "
            f"{first.ratio * first.expected_std:.4g} into the stream"
        )
    message = f"{subject} {what}: requested {requested}{via}, policy {policy_name} expects {expected}{ratio_text}"
    param = params[first.name]
    hint = _hint(first, param, facts, param.history, policy_name)
    if hint:
        message += f"; {hint}"
    return message


def _details(
    requested: str,
    expected: str,
    members: list[Row],
    params: dict[str, ParamFacts],
    policy_name: str,
) -> dict:
    """The machine-readable details of one group's finding."""
    first = members[0]
    history = params[first.name].history
    details = {
        "params": [m.name for m in members],
        "requested": requested,
        "expected": expected,
        "ratio": first.ratio,
        "policy": policy_name,
        "role": first.role,
        "history": [h.describe() + (f" at line {h.source[1]}" if h.source else "") for h in history],
    }
    if first.source and len(first.source) > 2:
        details["called_from_lines"] = list(first.source[2:])
    if params[first.name].requested.origin:
        details["init_at"] = params[first.name].requested.origin
    return details


def _headline(code: str, first: Row, patterns: list[str], policy_name: str) -> str:
    more = f" (+{len(patterns) - 1} more)" if len(patterns) > 1 else ""
    subject = "residual writer" if code in ("INI101", "INI108") else first.role
    if subject == roles.UNOBSERVED:
        subject = "parameter"
    # The layer names a weight well enough, and the headline has 100 characters.
    patterns = [p.removesuffix(".weight") for p in patterns]
    if code == "INI103":
        return f"{subject} {patterns[0]}{more} is never written after torch.empty"
    if first.ratio is None or not first.expected_std:
        return f"{subject} {patterns[0]}{more}: {first.requested}, {policy_name} expects {first.expected}"
    std = first.ratio * first.expected_std
    effective = "effective std" if code == "INI108" else "std"
    return (
        f"{subject} {patterns[0]}{more}: {effective} {std:.3g}, {policy_name} expects "
        f"{first.expected_std:.3g} (ratio {first.ratio:.3g})"
    )


def _code(row: Row) -> str:
    if row.verdict == "uninitialised":
        return "INI103"
    if row.role == "writer":
        runtime = row.factor is not None and abs(row.factor - 1) > FACTOR_TOLERANCE
        return "INI108" if runtime else "INI101"
    return "INI102"


def _close(value: float, target: float, tolerance: float = 0.05) -> bool:
    return target > 0 and abs(value / target - 1) <= tolerance


def _hint(row: Row, param: ParamFacts, facts: ModelFacts, history: list[Requested], policy_name: str) -> str:
    requested = param.requested
    expected = expected_for(policy_name, row.role, layer_index(row.name), param.fan_in, facts)
    for earlier in history[:-1]:
        if (
            expected is not None
            and earlier.kind not in ("uninitialised", "unknown", "computed")
            and (
                (expected.constant is not None and earlier.is_constant and constant_matches(earlier.mean, expected))
                or (expected.std is not None and _close(_compared_std(earlier), expected.std, 0.10))
            )
        ):
            where = f" (line {earlier.source[1]})" if earlier.source else ""
            later = f" at line {requested.source[1]}" if requested.source else ""
            return f"the right init{where} is overwritten later{later}"
    default_bound = requested.kind == "uniform" and _close(requested.high, 1 / math.sqrt(param.fan_in))
    if requested.by_default and len(param.shape) >= 2 and default_bound:
        return "this is PyTorch's default init: no custom init reached this parameter"
    if row.role == "embedding" and requested.kind == "normal" and _close(requested.std, 1.0):
        return "this is nn.Embedding's default N(0, 1): the custom init skips it"
    if row.ratio is None or row.role != "writer":
        return ""
    layers = max(facts.layers, 1)
    if _close(row.ratio, math.sqrt(layers)):
        return f"no depth scaling (the {layers} residual layers need 1/sqrt({layers}))"
    if _close(row.ratio, math.sqrt(2)) and layers >= 2 * facts.blocks:
        return f"scaled by the number of blocks instead of the {layers} residual layers (n_layer instead of 2*n_layer?)"
    if _close(row.ratio, 1 / math.sqrt(layers)):
        return "the depth factor is applied twice"
    return ""


def expected_std_per_writer(rows: list[Row]) -> dict[str, float]:
    """Writer parameter name -> the std the policy expects (for the effective-std measurement)."""
    return {row.name: row.expected_std for row in rows if row.role == "writer" and row.expected_std}
