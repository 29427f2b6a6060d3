"""Parameter roles: one vocabulary for `initlint explain` and the runtime table.

The runtime observes a parameter's role in a forward pass (`runtime/writers.py`); the static
analysis reads it from layer kinds and the residual data flow (`explain.py`). Both store the
keys below and print `label(role)`, so the two tables read alike. A leaf: no imports.
"""

from __future__ import annotations

WRITER = "writer"
LINEAR = "linear"
EMBEDDING = "embedding"
POSITION = "position"
HEAD = "head"
NORM_GAIN = "norm-gain"
NORM_BIAS = "norm-bias"
BIAS = "bias"
GAIN = "gain"
#: Static only: a parameter of a module whose use the analysis does not know.
PARAMETER = "parameter"
#: Runtime only: the forward pass ran and never read it.
UNUSED = "unused"
#: Runtime only: the forward pass did not run, so how the model uses it was never seen.
UNOBSERVED = "unobserved"

_LABELS = {
    WRITER: "residual writer",
    NORM_GAIN: "norm gain",
    NORM_BIAS: "norm bias",
    POSITION: "position embedding",
    UNOBSERVED: "not observed",
}

#: One tensor seen in several roles (tied weights, a weight used twice) takes the later one here:
#: a writer stays a writer, an embedding that is also the head is an embedding.
PRECEDENCE = (PARAMETER, GAIN, BIAS, LINEAR, NORM_BIAS, NORM_GAIN, HEAD, POSITION, EMBEDDING, WRITER)


def label(role: str) -> str:
    """The words a table prints for `role`."""
    return _LABELS.get(role, role)


def stronger(current: str | None, candidate: str) -> str:
    """The role a tensor keeps when it is seen as `current` and then as `candidate`."""
    if current is None or current not in PRECEDENCE:
        return candidate
    if candidate not in PRECEDENCE:
        return current
    return candidate if PRECEDENCE.index(candidate) > PRECEDENCE.index(current) else current
