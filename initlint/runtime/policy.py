"""Init policies: what each parameter role should be asked to hold.

A policy turns (role, layer, shape, model facts) into an `Expected`: a std (weights) or a
constant (biases, norm gains by their effect). `auto` (the default) is GPT-2 unless the model
matches another recognised *depth-scaled* scheme exactly; `none` is never auto-selected, so a
missing depth scaling is always reported unless the user asks for `none`.

Policies (`--policy NAME[:base_std]` or `[tool.initlint.runtime] policy = "..."`):

- gpt2:       writers base/sqrt(N), N residual layers observed in one forward: writes whose
              branches read the same stream state count once (2*n_layer for GPT blocks, n_layer
              for parallel attention+MLP blocks and single-branch Mamba blocks);
              linears, embeddings, heads base; norm gains 1, norm biases and biases 0.
- per-layer:  writer of block l: base/sqrt(b*(l+1)), b residual layers per block.
- small-init: NeoX: writers 2/(n_blocks*sqrt(d)), other weights sqrt(2/(5d)).
- zero-init:  writers exactly 0, the rest as gpt2.
- fan-in:     weights 1/sqrt(fan_in), writers also /sqrt(N); embeddings not judged.
- none:       no depth scaling: writers base like every other weight (HF-style).

`base` is `--policy gpt2:0.01`, else the model config's `initializer_range`, else 0.02.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

POLICIES = ("auto", "gpt2", "per-layer", "small-init", "zero-init", "fan-in", "none")
#: `auto` tries these in order; the first that explains every judged parameter and at least
#: one init the code asked for wins (layers at PyTorch's default are no plan: `default_init`).
AUTO_CANDIDATES = ("gpt2", "per-layer", "zero-init", "small-init", "fan-in")
DEFAULT_BASE_STD = 0.02
#: Relative tolerance on a requested std (deterministic, so only conventions need slack).
STD_TOLERANCE = 0.10
WEIGHT_ROLES = ("writer", "linear", "embedding", "position", "head")


class PolicyError(ValueError):
    """A policy name or value the user gave that does not parse."""


@dataclass(frozen=True)
class Policy:
    name: str = "auto"
    base_std: float | None = None
    tolerance: float = STD_TOLERANCE

    @classmethod
    def parse(cls, text: str | None) -> "Policy":
        if not text:
            return cls()
        name, _, base = text.strip().partition(":")
        name = name.strip().lower().replace("_", "-")
        if name not in POLICIES:
            raise PolicyError(f"unknown runtime policy {name!r}; choose one of {', '.join(POLICIES)}")
        try:
            base_std = float(base) if base else None
        except ValueError:
            raise PolicyError(f"policy base std {base!r} is not a number (e.g. gpt2:0.02)") from None
        if base_std is not None and not base_std > 0:
            raise PolicyError(f"policy base std must be positive, got {base}")
        return cls(name, base_std)

    def spec(self) -> str:
        return self.name if self.base_std is None else f"{self.name}:{self.base_std:g}"


@dataclass(frozen=True)
class ModelFacts:
    """What the policy formulas need, observed from the model."""

    layers: int  # residual layers N observed in one forward (see `writers.residual_layers`)
    blocks: int  # distinct blocks the writers sit in
    width: int  # embedding width d
    base_std: float
    #: Residuals added before a norm (`norm(x + f(x))`): depth scaling is not the setting there.
    post_norm: bool = False


@dataclass(frozen=True)
class Expected:
    std: float | None = None  # a random init with this std
    constant: float | None = None  # every element equal to this
    formula: str = ""

    def describe(self) -> str:
        if self.constant is not None:
            return f"constant {self.constant:g}"
        return f"std {self.std:.4g} ({self.formula})" if self.formula else f"std {self.std:.4g}"


def expected_for(policy_name: str, role: str, layer: int | None, fan_in: int, facts: ModelFacts) -> Expected | None:
    """The policy's expectation for one parameter; None when the policy does not judge it."""
    base = facts.base_std
    if role == "norm-gain":
        return Expected(constant=1.0, formula="norm gain 1 (by its effect)")
    if role in ("norm-bias", "bias"):
        return Expected(constant=0.0, formula="0")
    if role not in WEIGHT_ROLES:
        return None
    writes = max(facts.layers, 1)
    if policy_name == "small-init":
        width = max(facts.width, 1)
        if role == "writer":
            return Expected(2 / (max(facts.blocks, 1) * math.sqrt(width)), formula=f"2/({facts.blocks}*sqrt({width}))")
        return Expected(math.sqrt(2 / (5 * width)), formula=f"sqrt(2/(5*{width}))")
    if policy_name == "fan-in":
        if role in ("embedding", "position"):
            return None
        std, formula = 1 / math.sqrt(max(fan_in, 1)), f"1/sqrt({fan_in})"
        if role == "writer":
            return Expected(std / math.sqrt(writes), formula=f"{formula}/sqrt({writes})")
        return Expected(std, formula=formula)
    if role != "writer" or policy_name == "none" or (facts.post_norm and policy_name in ("gpt2", "per-layer")):
        return Expected(base, formula=f"{base:g}")
    if policy_name == "zero-init":
        return Expected(constant=0.0, formula="zero-init writer")
    if policy_name == "per-layer" and layer is not None:
        per_block = max(round(writes / max(facts.blocks, 1)), 1)
        return Expected(base / math.sqrt(per_block * (layer + 1)), formula=f"{base:g}/sqrt({per_block}*({layer}+1))")
    return Expected(base / math.sqrt(writes), formula=f"{base:g}/sqrt({writes})")


def std_matches(requested_std: float, requested_mean: float, expected: Expected, tolerance: float) -> bool:
    if expected.std is None:
        return False
    if expected.std == 0:
        return requested_std == 0
    ratio = requested_std / expected.std
    return abs(ratio - 1) <= tolerance and abs(requested_mean) <= tolerance * expected.std


def constant_matches(value: float, expected: Expected) -> bool:
    return expected.constant is not None and math.isclose(value, expected.constant, rel_tol=1e-6, abs_tol=1e-9)
