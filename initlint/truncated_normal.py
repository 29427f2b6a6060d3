"""The truncated normal, exactly: one routine for the static analysis and the runtime check.

`nn.init.trunc_normal_(t, mean, std, a, b)` cuts N(mean, std^2) at the absolute points a, b.
Both sides of initlint need what that leaves: the static rules the std a line asks for, the
runtime its std test (which also needs the shape: kurtosis and sixth moment). Standard library
only, so the static path never pays for more than `math`.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import NamedTuple

_STANDARD_NORMAL = NormalDist()


class TruncatedMoments(NamedTuple):
    mean: float
    std: float
    #: Standardised fourth and sixth central moments (3 and 15 for an uncut normal).
    kurtosis: float
    sixth: float


def truncated_normal_moments(mean: float, std: float, low: float, high: float) -> TruncatedMoments:
    """Moments of N(mean, std^2) cut to [low, high], by I_m = int_a^b x^m phi(x) dx.

    Integration by parts gives I_m = a^(m-1) phi(a) - b^(m-1) phi(b) + (m-1) I_(m-2), with
    I_0 = Phi(b) - Phi(a) and I_1 = phi(a) - phi(b); x^m phi(x) is taken as 0 at +-infinity.
    A cut that leaves (numerically) no mass gives the uncut normal's moments.
    """
    if std <= 0:
        return TruncatedMoments(mean, 0.0, 3.0, 15.0)
    a, b = (low - mean) / std, (high - mean) / std

    def edge(x: float, power: int) -> float:
        return 0.0 if math.isinf(x) else x**power * _STANDARD_NORMAL.pdf(x)

    integrals = [_STANDARD_NORMAL.cdf(b) - _STANDARD_NORMAL.cdf(a), edge(a, 0) - edge(b, 0)]
    if integrals[0] <= 1e-12:
        return TruncatedMoments(mean, std, 3.0, 15.0)
    for m in range(2, 7):
        integrals.append(edge(a, m - 1) - edge(b, m - 1) + (m - 1) * integrals[m - 2])
    raw = [value / integrals[0] for value in integrals]  # E[X^m] of the standardised cut normal
    centre = raw[1]

    def central(order: int) -> float:
        return sum(math.comb(order, j) * raw[j] * (-centre) ** (order - j) for j in range(order + 1))

    variance = max(central(2), 0.0)
    if variance == 0:
        return TruncatedMoments(mean + std * centre, 0.0, 3.0, 15.0)
    return TruncatedMoments(
        mean + std * centre, std * math.sqrt(variance), central(4) / variance**2, central(6) / variance**3
    )
