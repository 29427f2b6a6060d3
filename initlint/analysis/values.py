"""Symbolic numbers: an init std as a monomial in named quantities.

`0.02 / math.sqrt(2 * config.n_layer)` evaluates to `0.01414 * n_layer^-1/2`: a
constant times powers of *atoms* named after the attribute or variable they came
from. Which atom is the depth, the layer index or the width is decided later,
from the model's structure, not while evaluating. Where a power introduces a depth
atom we remember the multiplier that sat next to it (`2` in `sqrt(2 * L)`) and the
node that did it: that is what tells `N = 2L` from `N = L` and where to report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import libcst as cst


@dataclass(frozen=True)
class Power:
    """`base ** exponent` introduced at `node`, e.g. sqrt(2 * n_layer): atom n_layer, inner 2."""

    atom: str
    exponent: Fraction
    inner_coefficient: float
    node: cst.CSTNode = field(compare=False, hash=False)


@dataclass(frozen=True)
class Monomial:
    const: float
    atoms: tuple[tuple[str, Fraction], ...] = ()
    powers: tuple[Power, ...] = ()
    #: A sum kept as one atom (`depth + 1`): its two terms, so that taking one of them away
    #: again (`range(1, depth + 1)` runs `depth` times) gives the other back.
    terms: "tuple[Monomial, Monomial] | None" = field(default=None, compare=False, hash=False, repr=False)

    @staticmethod
    def of(value: float) -> "Monomial":
        return Monomial(float(value))

    @staticmethod
    def atom(name: str) -> "Monomial":
        return Monomial(1.0, ((name, Fraction(1)),))

    def exponent(self, atom: str) -> Fraction:
        return dict(self.atoms).get(atom, Fraction(0))

    def atom_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.atoms)

    @property
    def is_constant(self) -> bool:
        return not self.atoms

    def __mul__(self, other: "Monomial") -> "Monomial":
        merged = dict(self.atoms)
        for name, exp in other.atoms:
            merged[name] = merged.get(name, Fraction(0)) + exp
        atoms = tuple(sorted((n, e) for n, e in merged.items() if e != 0))
        return Monomial(self.const * other.const, atoms, self.powers + other.powers)

    def pow(self, exponent: Fraction, node: cst.CSTNode) -> "Monomial | None":
        if self.const < 0 and exponent.denominator != 1:
            return None
        if self.const == 0 and exponent < 0:
            return None
        try:
            const = self.const ** float(exponent)
        except (OverflowError, ZeroDivisionError):
            return None
        if isinstance(const, complex) or not math.isfinite(const):
            return None
        atoms = tuple((n, e * exponent) for n, e in self.atoms if e * exponent != 0)
        powers = tuple(replace(p, exponent=p.exponent * exponent) for p in self.powers)
        if exponent != 1:
            powers += tuple(Power(n, e * exponent, self.const, node) for n, e in self.atoms if e == 1)
        return Monomial(const, atoms, powers)

    def inverse(self, node: cst.CSTNode) -> "Monomial | None":
        return self.pow(Fraction(-1), node)

    def power_of(self, atom: str) -> Power | None:
        """The power that introduced `atom` with the exponent it has in the result."""
        for power in reversed(self.powers):
            if power.atom == atom and power.exponent == self.exponent(atom):
                return power
        return None

    def describe(self) -> str:
        text = f"{self.const:.6g}"
        for name, exp in self.atoms:
            if exp == Fraction(-1, 2):
                text += f"/sqrt({name})"
            elif exp == Fraction(1, 2):
                text += f"*sqrt({name})"
            elif exp == 1:
                text += f"*{name}"
            elif exp == -1:
                text += f"/{name}"
            else:
                text += f"*{name}^{exp}"
        return text


def fraction_of(value: float) -> Fraction | None:
    """Exponents we reason about are simple fractions (1/2, -1/2, 1, -1/4...), or a typo's
    (`** -0.05`, -1/20)."""
    frac = Fraction(value).limit_denominator(100)
    return frac if abs(float(frac) - value) < 1e-9 else None
