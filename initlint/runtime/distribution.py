"""Requested distributions: what an init asks a parameter to hold, with exact moments.

Plain data (torch-free), shared by the trace that builds them and the judge that reads them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from initlint.truncated_normal import truncated_normal_moments


class Shape(NamedTuple):
    """Standardised fourth and sixth central moments: what the std test needs to know."""

    kurtosis: float
    sixth: float


NORMAL = Shape(3.0, 15.0)
UNIFORM = Shape(9.0 / 5.0, 27.0 / 7.0)


class Moments(NamedTuple):
    mean: float
    std: float
    shape: Shape


@dataclass(frozen=True)
class Requested:
    """The distribution a parameter is asked to hold.

    kind: uninitialised | normal | uniform | trunc_normal | constant | orthogonal | computed | unknown.
    `std` is exact for the kind (truncation and uniform bounds included); `nominal_std` is the
    std argument the code passed (equal to `std` except for truncated normals).
    """

    kind: str
    mean: float = 0.0
    std: float = 0.0
    nominal_std: float = 0.0
    low: float = -math.inf
    high: float = math.inf
    op: str = ""
    source: tuple | None = None  # (file, line, caller lines in that file...)
    #: Fraction of elements never written after an uninitialised factory op.
    unwritten_fraction: float = 0.0
    #: Fraction of elements overwritten by a later partial write (a zeroed padding row).
    partial_fraction: float = 0.0
    #: "file:line" of the innermost user frame when it lies outside the focus files (a helper
    #: module the model file calls); `source` then names the call in the model file.
    origin: str = ""
    #: Written by a layer's own default (`reset_parameters` inside torch): no deliberate init.
    by_default: bool = False
    #: Written while a module's constructor runs (not by a caller re-initialising the model).
    in_constructor: bool = False

    @property
    def is_constant(self) -> bool:
        return self.kind == "constant"

    # -- the four kinds the std test judges, built from what an init call passes ------------
    @classmethod
    def normal(cls, std: float, mean: float = 0.0) -> "Requested":
        return cls("normal", mean, std, std) if std > 0 else cls.constant(mean)

    @classmethod
    def uniform(cls, low: float, high: float) -> "Requested":
        std = (high - low) / math.sqrt(12.0)
        return cls("uniform", (low + high) / 2, std, std, low, high) if high > low else cls.constant(low)

    @classmethod
    def trunc_normal(cls, std: float, mean: float = 0.0, low: float = -2.0, high: float = 2.0) -> "Requested":
        """`nn.init.trunc_normal_(t, mean, std, a, b)`: `low`/`high` are the absolute cut points."""
        if std <= 0:
            return cls.constant(mean)
        return cls("trunc_normal", mean, truncated_normal_std(mean, std, low, high), std, low, high)

    @classmethod
    def constant(cls, value: float) -> "Requested":
        return cls("constant", float(value), 0.0, 0.0, float(value), float(value))

    def moments(self) -> Moments:
        """Mean, std and shape of the requested distribution, exact (the std test's H0)."""
        if self.kind == "constant":
            return Moments(self.mean, 0.0, NORMAL)
        if self.kind == "normal":
            return Moments(self.mean, self.std, NORMAL)
        if self.kind == "uniform":
            return Moments(self.mean, (self.high - self.low) / math.sqrt(12.0), UNIFORM)
        if self.kind == "trunc_normal":
            cut = truncated_normal_moments(self.mean, self.nominal_std, self.low, self.high)
            return Moments(cut.mean, cut.std, Shape(cut.kurtosis, cut.sixth))
        raise ValueError(f"no moments for a {self.kind!r} request")

    def scaled(self, factor: float, op: str, source) -> "Requested":
        if self.kind in ("uninitialised", "unknown", "computed"):
            return replace(self, op=op, source=source)
        low, high = sorted((self.low * factor, self.high * factor))
        return replace(
            self,
            mean=self.mean * factor,
            std=self.std * abs(factor),
            nominal_std=self.nominal_std * abs(factor),
            low=low,
            high=high,
            op=op,
            source=source,
        )

    def shifted(self, offset: float, op: str, source) -> "Requested":
        if self.kind in ("uninitialised", "unknown", "computed"):
            return replace(self, op=op, source=source)
        return replace(
            self, mean=self.mean + offset, low=self.low + offset, high=self.high + offset, op=op, source=source
        )

    def describe(self) -> str:
        if self.kind == "constant":
            return f"constant {self.mean:g}"
        if self.kind == "measured":
            return f"measured std {self.std:.2g}"
        if self.kind in ("normal", "uniform", "orthogonal"):
            return f"{self.kind} std {self.std:.4g}"
        if self.kind == "trunc_normal":
            return f"trunc_normal std {self.nominal_std:.4g} (exact {self.std:.4g})"
        return self.kind

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if not (isinstance(v, float) and math.isinf(v))}
        data["source"] = list(self.source) if self.source else None
        return data


def truncated_normal_std(mean: float, std: float, low: float, high: float) -> float:
    """Exact std of N(mean, std^2) truncated to [low, high]."""
    return truncated_normal_moments(mean, std, low, high).std


def normal(mean: float, std: float, op: str, source=None) -> Requested:
    return Requested("normal", mean, abs(std), abs(std), op=op, source=source)


def uniform(low: float, high: float, op: str, source=None) -> Requested:
    std = (high - low) / math.sqrt(12)
    return Requested("uniform", (low + high) / 2, std, std, low, high, op=op, source=source)


def constant(value: float, op: str, source=None) -> Requested:
    return Requested("constant", float(value), 0.0, 0.0, float(value), float(value), op=op, source=source)


UNINITIALISED = Requested("uninitialised", op="empty")
UNKNOWN = Requested("unknown", op="unknown")
