"""Two versions of a model's parameters compared: their distributions, never their values.

A second init draws new numbers, so two versions of a parameter agree when their stds agree
within sampling noise (a two-sample test on ln(S1^2 / S2^2), whose variance is
2/(n1-1) + 2/(n2-1) for normal draws -- conservative for lighter-tailed uniform and truncated
draws), with the same Bonferroni family and practical floor as the test against a request, and
constants agree exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Protocol

from initlint.runtime.stats import COMPARISON_FALSE_ALARM, PRACTICAL_FLOOR, TensorStats, critical_z


class NamedChange(Protocol):
    """What the change lists print: a parameter and how it changed."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...


@dataclass(frozen=True)
class DistributionChange:
    name: str
    before: TensorStats
    after: TensorStats
    std_ratio: float  # after / before
    z: float
    description: str


def compare_distributions(
    before: Mapping[str, TensorStats],
    after: Mapping[str, TensorStats],
    family_false_alarm: float = COMPARISON_FALSE_ALARM,
    floor: float = PRACTICAL_FLOOR,
) -> list[DistributionChange]:
    """Parameters (present in both) whose distribution differs beyond sampling noise."""
    names = [name for name in before if name in after]
    tests = sum(_comparable(before[name], after[name]) for name in names)
    limit = critical_z(tests, family_false_alarm)
    changes = []
    for name in names:
        change = _compare_one(name, before[name], after[name], limit, floor)
        if change is not None:
            changes.append(change)
    return changes


def _comparable(first: TensorStats, second: TensorStats) -> bool:
    return first.numel >= 2 and first.finite and second.finite and first.constant is None and second.constant is None


def _compare_one(
    name: str, before: TensorStats, after: TensorStats, limit: float, floor: float
) -> DistributionChange | None:
    if before.finite != after.finite:
        return DistributionChange(
            name,
            before,
            after,
            math.nan,
            math.inf,
            f"{after.nonfinite} non-finite elements (before: {before.nonfinite})",
        )
    if not before.finite:
        return None
    if before.constant is not None or after.constant is not None:
        if before.constant == after.constant:
            return None
        return DistributionChange(
            name, before, after, math.nan, math.inf, f"{_describe(before)} became {_describe(after)}"
        )
    if before.numel < 2 or before.std == 0:
        return None
    ratio = after.std / before.std
    spread = math.sqrt(2.0 / (before.numel - 1) + 2.0 / (after.numel - 1))
    z = 2.0 * math.log(ratio) / spread
    if abs(z) > limit and abs(ratio - 1.0) > floor:
        return DistributionChange(
            name, before, after, ratio, z, f"std {before.std:.4g} became {after.std:.4g} ({ratio:.3f}x, z = {z:+.1f})"
        )
    return None


def _describe(stats: TensorStats) -> str:
    return f"constant {stats.constant:g}" if stats.constant is not None else f"std {stats.std:.4g}"
