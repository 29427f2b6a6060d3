"""Statistics of real parameter tensors, and the test of a measured std against a request.

Accuracy before speed, then speed: a single float32 reduction over tens of millions of
elements drifts by ~0.2% (enough for false alarms against a 0.01% sampling error), so
every tensor is reduced in chunks of 64K elements, each chunk in its own dtype (exact to
~1e-8 at that size) and the chunk results summed in float64. One thread: two OpenMP
threads under contention made reductions an order of magnitude slower.

The test. Under H0 the tensor holds n iid draws with standard deviation s0, kurtosis
kappa = mu4/s0^4 and sixth standardised moment mu6/s0^6. The ratio q = S^2/s0^2 of the
sample variance then has mean 1 and

    Var(q) = s^2 = 2/(n-1) + (kappa - 3)/n                                (1)

(kappa = 3 for a normal gives the chi-square variance 2/(n-1); a uniform has kappa = 9/5,
so its sample variance varies ~2.5x less). q is skewed; a power q^h with the right h is
nearly normal. To first order skew(g(q)) = skew(q) + 3 (g''/g') sd(q), so h = 1 - g/3 with
g = skew(q)/sd(q); q is to leading order the mean of Y = (X - mu)^2, whence
g = mu3(Y) mu2 / Var(Y) -- in standardised moments g = (m6 - 3 kappa + 2) / (kappa - 1)^2:
2 for a normal (h = 1/3: exactly Wilson-Hilferty's cube root), 5/7 for a uniform
(h = 0.76). With E[q^h] ~ 1 + h(h-1) s^2/2 and sd(q^h) ~ h s,

    z = (q^h - 1 - h(h-1) s^2/2) / (h s)                                  (2)

is standard normal under H0. Moment-matched Wilson-Hilferty alone (h = 1/3 for every shape)
put 2.3x too many uniform draws beyond z = -4 and 3x too few beyond +4; (2) is within
sampling error of both tails for normal, uniform and truncated normal draws.

Every std test in a model shares one family false-alarm rate (Bonferroni: two-sided per-test
alpha = family / m; the family gets 0.07% of the model's 0.1% budget, see MODEL_FALSE_ALARM),
and a deviation of the std below a practical floor (1%) is never reported, however many
elements make it significant.

Power (`power`; simulated in tests/runtime/test_stats.py and benchmarks/runtime_bench.py):
with 300 tests sharing the std tests' 0.07% family rate, a normal tensor whose std is sqrt(2)
too large is caught with probability >= 99.9% from 246 elements (99.94% at 256, and from 256
elements for up to 750 tests); sqrt(2) too small needs 271 elements (289 with 1000 tests).
Uniform draws, whose sample variance varies less, need only 98-130 elements.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from initlint.runtime.distribution import NORMAL, UNIFORM, Moments, Requested, Shape  # noqa: F401 -- re-exported
from initlint.runtime.probe import measurement_finding

if TYPE_CHECKING:  # pragma: no cover
    import torch

CHUNK_ELEMENTS = 1 << 16
#: A correct model's chance of any statistical false alarm, split among the four families of
#: tests: the std tests against requests (most tests, most of the budget), and the distribution
#: comparisons of idempotency, of meta parity and the effective-std tests (1e-4 each).
MODEL_FALSE_ALARM = 1e-3
COMPARISON_FALSE_ALARM = 1e-4
FAMILY_FALSE_ALARM = MODEL_FALSE_ALARM - 3 * COMPARISON_FALSE_ALARM
PRACTICAL_FLOOR = 0.01
_STANDARD_NORMAL = NormalDist()
#: Past this mean^2 / variance, float32 chunk sums of squares (relative error ~1e-7) leave
#: too few digits of the variance: such tensors (norm gains, constants) get an exact second pass.
_CANCELLATION_RATIO = 10.0


@contextmanager
def single_threaded() -> Iterator[None]:
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@dataclass(frozen=True)
class TensorStats:
    numel: int
    mean: float
    std: float  # sample std, n-1 in the denominator; nan when n < 2 or not finite
    nonfinite: int  # NaN and infinite elements
    constant: float | None  # the value when every element is equal, else None

    @property
    def finite(self) -> bool:
        return self.nonfinite == 0

    @property
    def all_zero(self) -> bool:
        return self.constant == 0.0

    @property
    def all_ones(self) -> bool:
        return self.constant == 1.0


def _chunks(tensor: "torch.Tensor") -> list["torch.Tensor"]:
    return list(tensor.detach().reshape(-1).split(CHUNK_ELEMENTS))


def _as_reducible(chunk: "torch.Tensor") -> "torch.Tensor":
    import torch

    # Half precision accumulates badly even over one chunk; float32 per chunk is exact enough.
    return chunk if chunk.dtype in (torch.float32, torch.float64) else chunk.float()


def _float64_sums(chunks: Sequence["torch.Tensor"], shift: float | None = None) -> tuple[float, float]:
    """Sum and sum of squares, across chunks in float64; within a chunk in its own dtype, or,
    given a `shift`, of (x - shift) in float64 (exact, and safe from float32 overflow)."""
    import torch

    sums, squares = [], []
    for chunk in chunks:
        chunk = _as_reducible(chunk) if shift is None else chunk.double() - shift
        sums.append(chunk.sum())
        squares.append(torch.dot(chunk, chunk))
    return (
        torch.stack(sums).double().sum().item(),
        torch.stack(squares).double().sum().item(),
    )


def _all_equal(chunks: Sequence["torch.Tensor"]) -> bool:
    first = chunks[0].reshape(-1)[:1]
    return all(bool((chunk == first).all()) for chunk in chunks)


def _count_nonfinite(chunks: Sequence["torch.Tensor"]) -> int:
    import torch

    return int(sum(int((~torch.isfinite(chunk)).sum()) for chunk in chunks))


def tensor_stats(tensor: "torch.Tensor") -> TensorStats:
    """Mean, std, finiteness and constancy of one real tensor (any device but meta)."""
    if tensor.is_meta:
        raise ValueError("tensor_stats needs real tensors; materialise the model first (to_empty + init)")
    if tensor.is_complex() or not tensor.is_floating_point():
        tensor = tensor.double()
    n = tensor.numel()
    if n == 0:
        return TensorStats(0, math.nan, math.nan, 0, None)
    with single_threaded():
        chunks = _chunks(tensor)
        total, squares = _float64_sums(chunks)
        if not (math.isfinite(total) and math.isfinite(squares)):
            nonfinite = _count_nonfinite(chunks)
            if nonfinite:
                return TensorStats(n, math.nan, math.nan, nonfinite, None)
            total, squares = _float64_sums(chunks, shift=0.0)  # finite, but |x| > ~1e17 overflowed float32
        mean = total / n
        variance = max(squares - total * mean, 0.0) / (n - 1) if n > 1 else 0.0
        if variance == 0.0 or variance * _CANCELLATION_RATIO < mean**2:
            if _all_equal(chunks):
                value = float(chunks[0].reshape(-1)[0])
                return TensorStats(n, value, 0.0 if n > 1 else math.nan, 0, value)
            shifted_total, shifted_squares = _float64_sums(chunks, shift=mean)
            variance = max(shifted_squares - shifted_total**2 / n, 0.0) / (n - 1)
    return TensorStats(n, mean, math.sqrt(variance) if n > 1 else math.nan, 0, None)


def parameter_stats(module: "torch.nn.Module") -> dict[str, TensorStats]:
    """Statistics of every distinct parameter of a materialised module, by qualified name."""
    return {name: tensor_stats(parameter) for name, parameter in module.named_parameters()}


# --- what was requested -------------------------------------------------------------------


# `Requested` (what an init asked for, with its exact moments), `Shape` and `Moments` live in
# the torch-free `distribution` module: the trace, the judge and this test share one type.


# --- the test -----------------------------------------------------------------------------


def _spread(n: int, shape: Shape) -> float:
    return math.sqrt(2.0 / (n - 1) + (shape.kurtosis - 3.0) / n)  # eq. (1)


def _exponent(shape: Shape) -> float:
    skew_over_sd = (shape.sixth - 3.0 * shape.kurtosis + 2.0) / (shape.kurtosis - 1.0) ** 2
    return max(1.0 - skew_over_sd / 3.0, 0.1)  # the floor only matters for heavy tails no init draws


def _score(variance_ratio: float, n: int, shape: Shape) -> float:
    spread, exponent = _spread(n, shape), _exponent(shape)
    centre = 1.0 + exponent * (exponent - 1.0) * spread**2 / 2.0
    return (variance_ratio**exponent - centre) / (exponent * spread)  # eq. (2)


def _variance_ratio_at(score: float, n: int, shape: Shape) -> float:
    spread, exponent = _spread(n, shape), _exponent(shape)
    centre = 1.0 + exponent * (exponent - 1.0) * spread**2 / 2.0
    return max(centre + score * exponent * spread, 0.0) ** (1.0 / exponent)


def std_z(measured_std: float, expected_std: float, n: int, shape: Shape = NORMAL) -> float:
    """Standard-normal score of a sample std of n iid draws against the true std, eq. (1)-(2)."""
    return _score((measured_std / expected_std) ** 2, n, shape)


def critical_z(tests: int, family_false_alarm: float = FAMILY_FALSE_ALARM) -> float:
    """Two-sided Bonferroni threshold on |z| for `tests` tests sharing the family rate."""
    return _STANDARD_NORMAL.inv_cdf(1.0 - family_false_alarm / (2.0 * max(tests, 1)))


def power(
    n: int,
    std_ratio: float,
    tests: int = 300,
    shape: Shape = NORMAL,
    family_false_alarm: float = FAMILY_FALSE_ALARM,
) -> float:
    """Probability that a tensor of n draws whose true std is `std_ratio` x the request is flagged."""
    limit = critical_z(tests, family_false_alarm)
    upper, lower = _variance_ratio_at(limit, n, shape), _variance_ratio_at(-limit, n, shape)
    ratio_squared = std_ratio**2
    above = 1.0 - _STANDARD_NORMAL.cdf(_score(upper / ratio_squared, n, shape))
    below = _STANDARD_NORMAL.cdf(_score(lower / ratio_squared, n, shape)) if lower > 0 else 0.0
    return above + below


@dataclass(frozen=True)
class StdVerdict:
    name: str
    numel: int
    requested: Requested
    expected_std: float
    measured_std: float
    measured_mean: float
    ratio: float  # measured / expected std; nan for constants
    z: float
    z_critical: float
    flagged: bool
    reason: str  # "" when not flagged; otherwise one line with the numbers


def _is_statistical(stats: TensorStats, requested: Requested) -> bool:
    return requested.kind != "constant" and stats.numel >= 2 and stats.finite


def judge_stds(
    measurements: Iterable[tuple[str, TensorStats, Requested]],
    family_false_alarm: float = FAMILY_FALSE_ALARM,
    floor: float = PRACTICAL_FLOOR,
) -> list[StdVerdict]:
    """Compare every measured tensor with its request; one shared family false-alarm rate."""
    items = list(measurements)
    tests = sum(_is_statistical(stats, requested) for _, stats, requested in items)
    limit = critical_z(tests, family_false_alarm)
    return [_judge_one(name, stats, requested, limit, floor) for name, stats, requested in items]


def _judge_one(name: str, stats: TensorStats, requested: Requested, limit: float, floor: float) -> StdVerdict:
    expected_mean, expected_std, shape = requested.moments()
    z, ratio, reason = 0.0, math.nan, ""
    if not stats.finite:
        reason = f"{stats.nonfinite} of {stats.numel} elements are NaN or infinite"
    elif requested.kind == "constant":
        if stats.constant is None or not math.isclose(stats.constant, expected_mean, rel_tol=1e-6, abs_tol=1e-12):
            found = (
                f"constant {stats.constant:g}"
                if stats.constant is not None
                else f"mean {stats.mean:.4g}, std {stats.std:.4g}"
            )
            reason = f"expected every element to be {expected_mean:g}, found {found}"
    elif stats.numel >= 2:
        ratio = stats.std / expected_std
        z = std_z(stats.std, expected_std, stats.numel, shape)
        if abs(z) > limit and abs(ratio - 1.0) > floor:
            reason = (
                f"std {stats.std:.4g} vs requested {expected_std:.4g} ({ratio:.3f}x) over {stats.numel} elements,"
                f" z = {z:+.1f} beyond +-{limit:.2f}"
            )
    return StdVerdict(
        name, stats.numel, requested, expected_std, stats.std, stats.mean, ratio, z, limit, bool(reason), reason
    )


def std_findings(verdicts: Iterable[StdVerdict]) -> list[dict[str, Any]]:
    """One finding per flagged parameter (each has its own request)."""
    return [
        measurement_finding(
            "INI109",
            f"{verdict.name}: {verdict.reason}",
            [verdict.name],
            requested=verdict.requested.kind,
            expected_std=verdict.expected_std,
            measured_std=verdict.measured_std,
            measured_mean=verdict.measured_mean,
            ratio=verdict.ratio,
            z=verdict.z,
            z_critical=verdict.z_critical,
            numel=verdict.numel,
        )
        for verdict in verdicts
        if verdict.flagged
    ]
