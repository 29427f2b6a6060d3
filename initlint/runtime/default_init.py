"""PyTorch's own default init: a layer nothing re-initialises is no mismatch with a policy.

`nn.Linear` and `nn.ConvNd` draw kaiming-uniform weights (std 1/sqrt(3 fan_in)) and uniform
biases, `nn.Embedding` N(0, 1), `nn.MultiheadAttention` xavier: no policy asks for those, so a
model that relies on them (most of a U-Net, the layers a pre-norm transformer never re-inits)
would get one finding per layer, and a linter that floods gets switched off. The trace knows
which parameters hold such a default: their last full write ran inside a torch layer's own
`reset_parameters` (`Requested.by_default`), nothing wrote them after.

So a non-writer parameter at its layer's default is judged against that default (verdict
`torch default`), and it stops counting for or against `auto`'s choice of a policy, which then
rests on the inits the code asks for. Three cases still speak:

- residual writers: the depth rules do not care who drew the std (`INI101` says "PyTorch's
  default init" in its hint);
- an embedding tied to the output head: N(0, 1) is nn.Embedding's default, not a head's;
- a model whose own init gives some layers of a kind (linear, embedding) what the policy asks
  while others of that kind keep the default: the plan missed them (an `apply(_init_weights)`
  before a layer is created). One `INI102` finding names them all with the plan's evidence. A
  plan for one kind says nothing of the other: a model that inits only its embedding keeps its
  linears at the default on purpose.
"""

from __future__ import annotations

from typing import Mapping, Protocol, Sequence

from initlint.runtime.distribution import Requested
from initlint.runtime.report import Row, RuntimeFinding

#: The verdict of a row at its layer's own default init, where the policy would ask otherwise.
TORCH_DEFAULT = "torch default"
#: Non-writer weight roles by the kind of layer they are: a plan that reaches one layer of a
#: kind with its own init should have reached the others of that kind.
_KINDS = {"linear": "linear", "head": "linear", "embedding": "embedding", "position": "embedding"}
_EMBEDDING_ROLES = ("embedding", "position")
#: Requests that say what the code asked for (not unknown, not computed).
_EXPLICIT_KINDS = ("normal", "uniform", "trunc_normal", "orthogonal", "constant")


class _Param(Protocol):
    requested: Requested


def at_layer_default(requested: Requested, role: str, used_as_head: bool) -> bool:
    """Does the parameter hold its layer's own default (last fully written by torch's
    `reset_parameters`) for the way the forward uses it? An embedding tied to the output head
    does not: nn.Embedding's N(0, 1) is no default for a head, whose logits it would blow up."""
    return (
        requested.by_default
        and requested.kind in _EXPLICIT_KINDS
        and not requested.unwritten_fraction
        and not (used_as_head and role in _EMBEDDING_ROLES)
    )


def is_explicit(requested: Requested) -> bool:
    """Did the model's own code ask for this distribution (not a layer default, not unknown)?
    Values measured off a built model count: nothing there tells a default apart."""
    return (
        not requested.by_default
        and requested.kind in (*_EXPLICIT_KINDS, "measured")
        and not requested.unwritten_fraction
    )


def plan_evidence(rows: Sequence[Row], params: Mapping[str, _Param]) -> list[Row]:
    """Non-writer weights the model's own init gave what the policy asks: its plan reaches them."""
    return [
        row for row in rows if row.role in _KINDS and row.verdict == "ok" and is_explicit(params[row.name].requested)
    ]


def default_init_finding(rows: Sequence[Row], params: Mapping[str, _Param], policy_name: str) -> RuntimeFinding | None:
    """One finding for the layers left at PyTorch's default where the model's own init gives
    other layers of their kind (linear, embedding) what the policy asks: the plan missed them.
    None when no plan reaches that kind (a model that only inits its embedding, or nothing)."""
    evidence = plan_evidence(rows, params)
    reached = {_KINDS[row.role] for row in evidence}
    weights = [row for row in rows if row.verdict == TORCH_DEFAULT and _KINDS.get(row.role) in reached]
    if not weights:
        return None
    layers = {_layer(row.name) for row in weights}
    left = [
        row
        for row in rows
        if row in weights or (row.verdict == TORCH_DEFAULT and row.role == "bias" and _layer(row.name) in layers)
    ]
    parts = _group_messages(left, policy_name)
    plan_rows = [row for row in evidence if _KINDS[row.role] in {_KINDS[w.role] for w in weights}]
    shown = sorted({row.pattern for row in plan_rows})
    plan = f"{', '.join(shown[:3])}{f' (+{len(shown) - 3} more)' if len(shown) > 3 else ''}"
    message = (
        f"{_count(left)} keep PyTorch's default init while the model's own init follows {policy_name} "
        f"on other layers of their kind, {plan} ({plan_rows[0].requested}): it skips these; " + "; ".join(parts)
    )
    patterns = sorted({row.pattern.removesuffix(".weight") for row in weights})
    more = f" (+{len(patterns) - 1} more)" if len(patterns) > 1 else ""
    headline = f"{patterns[0]}{more} left at PyTorch's default init; the rest follows {policy_name}"
    first = left[0]
    return RuntimeFinding(
        "INI102",
        message,
        [row.name for row in left],
        first.source,
        {
            "params": [row.name for row in left],
            "requested": first.requested,
            "expected": first.expected,
            "ratio": first.ratio,
            "policy": policy_name,
            "role": first.role,
            "plan": [row.name for row in plan_rows],
            "history": [],
        },
        headline=headline,
    )


def _group_messages(left: Sequence[Row], policy_name: str) -> list[str]:
    """One clause per (role, request, expectation): the patterns, the numbers, whose default."""
    groups: dict[tuple, list[Row]] = {}
    for row in left:
        ratio = None if row.ratio is None else round(row.ratio, 3)
        groups.setdefault((row.role, row.requested, row.expected, ratio), []).append(row)
    parts = []
    for (role, requested, expected, _ratio), members in groups.items():
        patterns = sorted({m.pattern for m in members})
        ratio_text = f" (ratio {members[0].ratio:.3g})" if members[0].ratio is not None else ""
        parts.append(
            f"{role} {', '.join(patterns)} ({_count(members)}): requested {requested}, "
            f"policy {policy_name} expects {expected}{ratio_text}{_layer_default(role, requested)}"
        )
    return parts


def _layer(name: str) -> str:
    return name.rpartition(".")[0]


def _count(rows: Sequence[Row]) -> str:
    return f"{len(rows)} tensor{'s' if len(rows) != 1 else ''}"


def _layer_default(role: str, requested: str) -> str:
    if role in ("embedding", "position") and requested == "normal std 1":
        return ", nn.Embedding's default N(0, 1)"
    return ""
